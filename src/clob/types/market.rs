//! Markets: the full market object, the simplified one, the compact `/clob-markets` form.
//!
//! Text fields are `Cow<'a, str>`: decoding a page borrows from the response bytes (an
//! allocation only where a string has escapes); [`Market::into_owned`] detaches a row.

use std::borrow::Cow;

use serde::Deserialize;

use crate::fixed::{Price, Size};
use crate::http::lenient;
use crate::types::{
    ConditionId, FeeSchedule, Protocol, ProtocolError, TickSize, Timestamp, timestamp_opt,
};

fn cow_owned(c: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(c.into_owned())
}

/// Like [`cow_owned`], but the outcomes nearly every binary market has are shared statics,
/// so detaching a page does not allocate for them.
fn outcome_owned(c: Cow<'_, str>) -> Cow<'static, str> {
    match &*c {
        "Yes" => Cow::Borrowed("Yes"),
        "No" => Cow::Borrowed("No"),
        "Up" => Cow::Borrowed("Up"),
        "Down" => Cow::Borrowed("Down"),
        _ => cow_owned(c),
    }
}

/// One outcome token of a market.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Token<'a> {
    /// The ERC-1155 token id, a decimal string of up to 78 digits.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub token_id: Cow<'a, str>,
    /// `"Yes"`, `"No"`, a team name…
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub outcome: Cow<'a, str>,
    /// Last price, when the server sends one.
    #[serde(default, deserialize_with = "lenient::price_opt")]
    pub price: Option<Price>,
    /// Whether this outcome won (resolved markets).
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub winner: bool,
}

impl Token<'_> {
    /// Detaches the token from the response bytes.
    #[must_use]
    pub fn into_owned(self) -> Token<'static> {
        Token {
            token_id: cow_owned(self.token_id),
            outcome: outcome_owned(self.outcome),
            price: self.price,
            winner: self.winner,
        }
    }
}

/// One reward rate of a market's liquidity program.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct RewardRate<'a> {
    /// The reward token.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub asset_address: Cow<'a, str>,
    /// Daily rate, as sent.
    #[serde(default, deserialize_with = "lenient::size")]
    pub rewards_daily_rate: Size,
}

/// A market's liquidity-reward parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Rewards<'a> {
    /// Rates per reward token (`null` becomes empty).
    #[serde(borrow, default, deserialize_with = "rates")]
    pub rates: Vec<RewardRate<'a>>,
    /// Minimum order size that earns rewards.
    #[serde(default, deserialize_with = "lenient::size")]
    pub min_size: Size,
    /// Maximum spread (in cents) that earns rewards.
    #[serde(default, deserialize_with = "lenient::size")]
    pub max_spread: Size,
}

fn rates<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<RewardRate<'de>>, D::Error> {
    Option::<Vec<RewardRate<'de>>>::deserialize(d).map(Option::unwrap_or_default)
}

fn tags<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Cow<'de, str>>, D::Error> {
    #[derive(Deserialize)]
    struct T<'a>(#[serde(borrow, deserialize_with = "lenient::text")] Cow<'a, str>);
    Option::<Vec<T<'de>>>::deserialize(d)
        .map(|v| v.unwrap_or_default().into_iter().map(|t| t.0).collect())
}

impl Rewards<'_> {
    /// Detaches the rewards from the response bytes.
    #[must_use]
    pub fn into_owned(self) -> Rewards<'static> {
        Rewards {
            rates: self
                .rates
                .into_iter()
                .map(|r| RewardRate {
                    asset_address: cow_owned(r.asset_address),
                    rewards_daily_rate: r.rewards_daily_rate,
                })
                .collect(),
            min_size: self.min_size,
            max_spread: self.max_spread,
        }
    }
}

/// A market as `GET /markets` and `GET /markets/{condition_id}` return it.
///
/// Missing fields take their defaults; `""` where a number belongs is "none".
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Market<'a> {
    /// The CTF condition id (0x-hex).
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub condition_id: Cow<'a, str>,
    /// The UMA question id.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub question_id: Cow<'a, str>,
    /// The outcome tokens.
    #[serde(borrow, default)]
    pub tokens: Vec<Token<'a>>,
    /// Liquidity-reward parameters.
    #[serde(borrow, default)]
    pub rewards: Option<Rewards<'a>>,
    /// Smallest accepted order, in shares.
    #[serde(default, deserialize_with = "lenient::size_opt")]
    pub minimum_order_size: Option<Size>,
    /// The tick size (`None` when the server sends one this crate does not know).
    #[serde(default, deserialize_with = "lenient::tick_opt")]
    pub minimum_tick_size: Option<TickSize>,
    /// Negative-risk market: orders go to the neg-risk exchange.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub neg_risk: bool,
    /// The neg-risk market id.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub neg_risk_market_id: Cow<'a, str>,
    /// The neg-risk request id.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub neg_risk_request_id: Cow<'a, str>,
    /// The market has an order book.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub enable_order_book: bool,
    /// Active.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub active: bool,
    /// Closed.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub closed: bool,
    /// Archived.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub archived: bool,
    /// Orders are accepted.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub accepting_orders: bool,
    /// Since when orders are accepted, if known.
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub accepting_order_timestamp: Option<Timestamp>,
    /// End date (the CLOB sends ISO 8601).
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub end_date_iso: Option<Timestamp>,
    /// Game start (sports), if any: ISO 8601 here, epoch milliseconds on the market
    /// channel's `new_market`; read from either.
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub game_start_time: Option<Timestamp>,
    /// Matching delay in seconds (sports).
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub seconds_delay: u64,
    /// Maker base fee (bps).
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub maker_base_fee: u64,
    /// Taker base fee (bps).
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub taker_base_fee: u64,
    /// URL slug.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub market_slug: Cow<'a, str>,
    /// The question.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub question: Cow<'a, str>,
    /// The long description.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub description: Cow<'a, str>,
    /// Icon URL.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub icon: Cow<'a, str>,
    /// Image URL.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub image: Cow<'a, str>,
    /// The FPMM address (legacy AMM).
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub fpmm: Cow<'a, str>,
    /// Notifications enabled.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub notifications_enabled: bool,
    /// 50/50 outcome market.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub is_50_50_outcome: bool,
    /// Tags.
    #[serde(borrow, default, deserialize_with = "tags")]
    pub tags: Vec<Cow<'a, str>>,
}

impl Market<'_> {
    /// Detaches the market from the response bytes.
    #[must_use]
    pub fn into_owned(self) -> Market<'static> {
        Market {
            condition_id: cow_owned(self.condition_id),
            question_id: cow_owned(self.question_id),
            tokens: self.tokens.into_iter().map(Token::into_owned).collect(),
            rewards: self.rewards.map(Rewards::into_owned),
            minimum_order_size: self.minimum_order_size,
            minimum_tick_size: self.minimum_tick_size,
            neg_risk: self.neg_risk,
            neg_risk_market_id: cow_owned(self.neg_risk_market_id),
            neg_risk_request_id: cow_owned(self.neg_risk_request_id),
            enable_order_book: self.enable_order_book,
            active: self.active,
            closed: self.closed,
            archived: self.archived,
            accepting_orders: self.accepting_orders,
            accepting_order_timestamp: self.accepting_order_timestamp,
            end_date_iso: self.end_date_iso,
            game_start_time: self.game_start_time,
            seconds_delay: self.seconds_delay,
            maker_base_fee: self.maker_base_fee,
            taker_base_fee: self.taker_base_fee,
            market_slug: cow_owned(self.market_slug),
            question: cow_owned(self.question),
            description: cow_owned(self.description),
            icon: cow_owned(self.icon),
            image: cow_owned(self.image),
            fpmm: cow_owned(self.fpmm),
            notifications_enabled: self.notifications_enabled,
            is_50_50_outcome: self.is_50_50_outcome,
            tags: self.tags.into_iter().map(cow_owned).collect(),
        }
    }
}

/// A market as the `/simplified-markets` lists return it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct SimplifiedMarket<'a> {
    /// The CTF condition id.
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    pub condition_id: Cow<'a, str>,
    /// The outcome tokens.
    #[serde(borrow, default)]
    pub tokens: Vec<Token<'a>>,
    /// Liquidity-reward parameters.
    #[serde(borrow, default)]
    pub rewards: Option<Rewards<'a>>,
    /// Active.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub active: bool,
    /// Closed.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub closed: bool,
    /// Archived.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub archived: bool,
    /// Orders are accepted.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub accepting_orders: bool,
}

impl SimplifiedMarket<'_> {
    /// Detaches the market from the response bytes.
    #[must_use]
    pub fn into_owned(self) -> SimplifiedMarket<'static> {
        SimplifiedMarket {
            condition_id: cow_owned(self.condition_id),
            tokens: self.tokens.into_iter().map(Token::into_owned).collect(),
            rewards: self.rewards.map(Rewards::into_owned),
            active: self.active,
            closed: self.closed,
            archived: self.archived,
            accepting_orders: self.accepting_orders,
        }
    }
}

/// `GET /clob-markets/{condition_id}`: the compact market the order path needs.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ClobMarket {
    /// Condition id (`c`).
    #[serde(rename = "c", default, deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Tokens (`t`: `{t: token_id, o: outcome}`).
    #[serde(rename = "t", default)]
    pub tokens: Vec<ClobMarketToken>,
    /// Minimum tick size (`mts`).
    #[serde(rename = "mts", default, deserialize_with = "lenient::tick_opt")]
    pub min_tick_size: Option<TickSize>,
    /// Minimum order size (`mos`).
    #[serde(rename = "mos", default, deserialize_with = "lenient::size_opt")]
    pub min_order_size: Option<Size>,
    /// Neg-risk (`nr`).
    #[serde(rename = "nr", default, deserialize_with = "lenient::bool_lenient")]
    pub neg_risk: bool,
    /// Fee schedule (`fd {r, e, to}`); `None` on a fee-free market (`fd` all zero) or when
    /// `fd` is absent or unreadable. `fd` carries no rebate rate.
    #[serde(rename = "fd", default, deserialize_with = "lenient::fee_schedule_opt")]
    pub fee: Option<FeeSchedule>,
    /// Maker base fee bps (`mbf`).
    #[serde(rename = "mbf", default, deserialize_with = "lenient::u64_lenient")]
    pub maker_base_fee_bps: u64,
    /// Taker base fee bps (`tbf`).
    #[serde(rename = "tbf", default, deserialize_with = "lenient::u64_lenient")]
    pub taker_base_fee_bps: u64,
    /// RFQ enabled (`rfqe`).
    #[serde(rename = "rfqe", default, deserialize_with = "lenient::bool_lenient")]
    pub rfq_enabled: bool,
    /// The market's protocol version (`v`): `"v1"` (CTF) or `"v2"` (Protocol V2); empty when
    /// absent. [`Self::protocol`] reads it.
    #[serde(rename = "v", default, deserialize_with = "lenient::string")]
    pub version: String,
}

impl ClobMarket {
    /// The market's protocol from `v`. A record without `v` is a CTF market: the field came
    /// with Protocol V2 and is on every record since (the live answers carry `"v":"v1"`).
    ///
    /// ```
    /// use polyclob::clob::types::ClobMarket;
    /// use polyclob::types::Protocol;
    /// let m: ClobMarket = serde_json::from_str(r#"{"c":"0x01","v":"v2","t":[]}"#)?;
    /// assert_eq!(m.protocol()?, Protocol::V2);
    /// let odd: ClobMarket = serde_json::from_str(r#"{"v":"v9"}"#)?;
    /// assert!(odd.protocol().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ProtocolError::UnknownVersion`] for a `v` other than `"v1"`/`"v2"`.
    pub fn protocol(&self) -> Result<Protocol, ProtocolError> {
        if self.version.is_empty() {
            Ok(Protocol::Ctf)
        } else {
            Protocol::parse(&self.version)
        }
    }

    /// The condition id, typed by the market's protocol (`bytes31` on V2).
    ///
    /// # Errors
    /// An unknown `v`, or a condition id of the wrong width for the protocol.
    pub fn condition(&self) -> Result<ConditionId, ProtocolError> {
        ConditionId::parse_for(&self.condition_id, self.protocol()?)
    }
}

/// One token of a [`ClobMarket`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ClobMarketToken {
    /// Token id (`t`).
    #[serde(rename = "t", default, deserialize_with = "lenient::string")]
    pub token_id: String,
    /// Outcome (`o`).
    #[serde(rename = "o", default, deserialize_with = "lenient::string")]
    pub outcome: String,
}

/// `GET /markets-by-token/{token_id}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct MarketByToken {
    /// The condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// The first token.
    #[serde(default, deserialize_with = "lenient::string")]
    pub primary_token_id: String,
    /// The second token.
    #[serde(default, deserialize_with = "lenient::string")]
    pub secondary_token_id: String,
}
