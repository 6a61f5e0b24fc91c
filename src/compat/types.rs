//! The polymarket-rs-client 0.1.1 data types, field for field (<https://docs.rs/polymarket-rs-client/0.1.1>).
//!
//! Their shapes are frozen by the contract: no `#[non_exhaustive]`, no new fields or
//! variants. Derives may only grow.

#![allow(clippy::upper_case_acronyms)]

use core::fmt;

use alloy_primitives::U256;
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize};

use super::signed::SignedOrderRequest;

/// Order side (`"BUY"`/`"SELL"` on the wire; `BUY as u8 == 0`).
#[derive(Debug, Serialize, Deserialize, Clone, Copy, Hash, Eq, PartialEq)]
pub enum Side {
    /// Buy.
    BUY = 0,
    /// Sell.
    SELL = 1,
}

impl Side {
    /// `"BUY"` or `"SELL"`.
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::BUY => "BUY",
            Self::SELL => "SELL",
        }
    }
}

impl From<Side> for crate::types::Side {
    fn from(s: Side) -> Self {
        match s {
            Side::BUY => Self::Buy,
            Side::SELL => Self::Sell,
        }
    }
}

impl From<crate::types::Side> for Side {
    fn from(s: crate::types::Side) -> Self {
        match s {
            crate::types::Side::Buy => Self::BUY,
            crate::types::Side::Sell => Self::SELL,
        }
    }
}

/// Order type (`GTC = 0`, `FOK = 1`, `GTD = 2`).
#[derive(Debug, Serialize, Deserialize, Clone, Copy, Hash, Eq, PartialEq)]
pub enum OrderType {
    /// Good till cancelled.
    GTC,
    /// Fill or kill.
    FOK,
    /// Good till date.
    GTD,
}

impl OrderType {
    /// `"GTC"`, `"FOK"` or `"GTD"`.
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::GTC => "GTC",
            Self::FOK => "FOK",
            Self::GTD => "GTD",
        }
    }
}

impl From<OrderType> for crate::types::OrderType {
    fn from(t: OrderType) -> Self {
        match t {
            OrderType::GTC => Self::Gtc,
            OrderType::FOK => Self::Fok,
            OrderType::GTD => Self::Gtd,
        }
    }
}

/// The asset of a balance query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AssetType {
    /// pUSD / USDC.e.
    COLLATERAL,
    /// Outcome tokens.
    CONDITIONAL,
}

// `Display` (a superset of 0.1.1's manual `ToString`) keeps `to_string()` working.
impl fmt::Display for AssetType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::COLLATERAL => "COLLATERAL",
            Self::CONDITIONAL => "CONDITIONAL",
        })
    }
}

/// Query of `get_balance_allowance` / `update_balance_allowance`.
#[derive(Debug, Default, Clone)]
pub struct BalanceAllowanceParams {
    /// `asset_type`.
    pub asset_type: Option<AssetType>,
    /// `token_id`.
    pub token_id: Option<String>,
    /// `signature_type`; `None` means EOA (0).
    pub signature_type: Option<u8>,
}

impl BalanceAllowanceParams {
    /// The query pairs in wire order: `asset_type`, `token_id`, `signature_type`.
    #[must_use]
    pub fn to_query_params(&self) -> Vec<(&str, String)> {
        let mut v = Vec::with_capacity(3);
        if let Some(a) = &self.asset_type {
            v.push(("asset_type", a.to_string()));
        }
        if let Some(t) = &self.token_id {
            v.push(("token_id", t.clone()));
        }
        if let Some(s) = self.signature_type {
            v.push(("signature_type", s.to_string()));
        }
        v
    }

    /// Sets `signature_type`.
    pub fn set_signature_type(&mut self, s: u8) {
        self.signature_type = Some(s);
    }
}

/// Filters of `get_trades`.
#[derive(Debug, Default, Clone)]
pub struct TradeParams {
    /// Trade id.
    pub id: Option<String>,
    /// Maker address (sent by `get_trades`; not part of [`to_query_params`](Self::to_query_params), as in 0.1.1).
    pub maker_address: Option<String>,
    /// Condition id.
    pub market: Option<String>,
    /// Token id.
    pub asset_id: Option<String>,
    /// Before (unix seconds).
    pub before: Option<u64>,
    /// After (unix seconds).
    pub after: Option<u64>,
}

impl TradeParams {
    /// `id`, `asset_id`, `market`, `before`, `after` (0.1.1 never emits `maker_address` here).
    #[must_use]
    pub fn to_query_params(&self) -> Vec<(&str, String)> {
        let mut v = Vec::with_capacity(5);
        if let Some(x) = &self.id {
            v.push(("id", x.clone()));
        }
        if let Some(x) = &self.asset_id {
            v.push(("asset_id", x.clone()));
        }
        if let Some(x) = &self.market {
            v.push(("market", x.clone()));
        }
        if let Some(x) = self.before {
            v.push(("before", x.to_string()));
        }
        if let Some(x) = self.after {
            v.push(("after", x.to_string()));
        }
        v
    }
}

/// Filters of `get_orders`.
#[derive(Debug, Default, Clone)]
pub struct OpenOrderParams {
    /// Order id.
    pub id: Option<String>,
    /// Token id.
    pub asset_id: Option<String>,
    /// Condition id.
    pub market: Option<String>,
}

impl OpenOrderParams {
    /// `id`, `asset_id`, `market`.
    #[must_use]
    pub fn to_query_params(&self) -> Vec<(&str, &String)> {
        let mut v = Vec::with_capacity(3);
        if let Some(x) = &self.id {
            v.push(("id", x));
        }
        if let Some(x) = &self.asset_id {
            v.push(("asset_id", x));
        }
        if let Some(x) = &self.market {
            v.push(("market", x));
        }
        v
    }
}

fn u64_str_or_num<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    crate::http::lenient::u64_lenient(d)
}

fn null_vec<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Option::<Vec<String>>::deserialize(d).map(Option::unwrap_or_default)
}

/// An open order.
#[derive(Debug, Deserialize, Clone)]
pub struct OpenOrder {
    /// Trades that filled it (`null` reads as empty).
    #[serde(default, deserialize_with = "null_vec")]
    pub associate_trades: Vec<String>,
    /// Order hash.
    pub id: String,
    /// Status.
    pub status: String,
    /// Condition id.
    pub market: String,
    /// Original size.
    #[serde(with = "rust_decimal::serde::str")]
    pub original_size: Decimal,
    /// Outcome.
    pub outcome: String,
    /// Maker address.
    pub maker_address: String,
    /// Owner API key.
    pub owner: String,
    /// Price.
    #[serde(with = "rust_decimal::serde::str")]
    pub price: Decimal,
    /// Side.
    pub side: Side,
    /// Matched size.
    #[serde(with = "rust_decimal::serde::str")]
    pub size_matched: Decimal,
    /// Token id.
    pub asset_id: String,
    /// Expiration (unix seconds; string or number).
    #[serde(deserialize_with = "u64_str_or_num")]
    pub expiration: u64,
    /// Order type (JSON `"type"`; `"order_type"` is accepted too).
    #[serde(rename = "type", alias = "order_type")]
    pub order_type: OrderType,
    /// Creation time (unix seconds; string or number).
    #[serde(deserialize_with = "u64_str_or_num")]
    pub created_at: u64,
}

/// The body of `POST /order`: `{"order":…,"owner":…,"orderType":…}`.
#[derive(Debug, Serialize)]
pub struct PostOrder {
    order: SignedOrderRequest,
    owner: String,
    #[serde(rename = "orderType")]
    order_type: OrderType,
}

impl PostOrder {
    /// Wraps a signed order for posting.
    #[must_use]
    pub fn new(order: SignedOrderRequest, owner: String, order_type: OrderType) -> Self {
        Self {
            order,
            owner,
            order_type,
        }
    }
}

/// Arguments of a limit order.
#[derive(Debug, Clone)]
pub struct OrderArgs {
    /// Token id (decimal).
    pub token_id: String,
    /// Limit price.
    pub price: Decimal,
    /// Size in shares.
    pub size: Decimal,
    /// Side.
    pub side: Side,
}

impl OrderArgs {
    /// All four fields.
    #[must_use]
    pub fn new(token_id: &str, price: Decimal, size: Decimal, side: Side) -> Self {
        Self {
            token_id: token_id.to_owned(),
            price,
            size,
            side,
        }
    }
}

/// Arguments of a market (BUY) order: spend `amount` pUSD.
#[derive(Debug, Clone)]
pub struct MarketOrderArgs {
    /// Token id (decimal).
    pub token_id: String,
    /// pUSD to spend.
    pub amount: Decimal,
}

/// Rarely needed order fields (V1-only on today's exchange: ignored by V2 orders).
#[derive(Debug, Clone)]
pub struct ExtraOrderArgs {
    /// Fee rate (V1 only).
    pub fee_rate_bps: u32,
    /// Exchange nonce (V1 only).
    pub nonce: U256,
    /// Taker address (V1 only).
    pub taker: String,
}

impl Default for ExtraOrderArgs {
    fn default() -> Self {
        Self {
            fee_rate_bps: 0,
            nonce: U256::ZERO,
            taker: "0x0000000000000000000000000000000000000000".to_owned(),
        }
    }
}

/// Market parameters the caller already knows; with both set, `create_order` does no I/O.
#[derive(Debug, Default, Clone)]
pub struct CreateOrderOptions {
    /// Tick size.
    pub tick_size: Option<Decimal>,
    /// Neg-risk market.
    pub neg_risk: Option<bool>,
}

/// An order book.
#[derive(Debug, Deserialize, Clone)]
pub struct OrderBookSummary {
    /// Condition id.
    pub market: String,
    /// Token id.
    pub asset_id: String,
    /// Hash.
    pub hash: String,
    /// Timestamp (ms; string or number).
    #[serde(deserialize_with = "u64_str_or_num")]
    pub timestamp: u64,
    /// Bids as sent (worst first).
    pub bids: Vec<OrderSummary>,
    /// Asks as sent (worst first).
    pub asks: Vec<OrderSummary>,
}

/// One book level.
#[derive(Debug, Deserialize, Clone)]
pub struct OrderSummary {
    /// Price.
    #[serde(with = "rust_decimal::serde::str")]
    pub price: Decimal,
    /// Size.
    #[serde(with = "rust_decimal::serde::str")]
    pub size: Decimal,
}

/// L2 API credentials. `Debug` redacts the secret and passphrase.
#[derive(Default, Serialize, Deserialize, Clone)]
pub struct ApiCreds {
    /// API key.
    #[serde(rename = "apiKey")]
    pub api_key: String,
    /// Secret (URL-safe base64).
    pub secret: String,
    /// Passphrase.
    pub passphrase: String,
}

impl fmt::Debug for ApiCreds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiCreds")
            .field("api_key", &self.api_key)
            .field("secret", &"<redacted>")
            .field("passphrase", &"<redacted>")
            .finish()
    }
}

/// The compat name of the crate's one credential type: `ApiCreds` converts to and from
/// [`clob::Credentials`](crate::clob::Credentials) (which zeroizes its secrets).
impl From<&ApiCreds> for crate::clob::Credentials {
    fn from(c: &ApiCreds) -> Self {
        Self::new(c.api_key.clone(), c.secret.clone(), c.passphrase.clone())
    }
}

impl From<&crate::clob::Credentials> for ApiCreds {
    fn from(c: &crate::clob::Credentials) -> Self {
        Self {
            api_key: c.api_key().to_owned(),
            secret: c.secret().to_owned(),
            passphrase: c.passphrase().to_owned(),
        }
    }
}

/// `{"apiKeys":[…]}`.
#[derive(Debug, Deserialize, Clone)]
pub struct ApiKeysResponse {
    /// API keys.
    #[serde(rename = "apiKeys")]
    pub api_keys: Vec<String>,
}

/// `{"mid":"…"}`.
#[derive(Debug, Deserialize, Serialize, Clone)]
pub struct MidpointResponse {
    /// Midpoint.
    #[serde(with = "rust_decimal::serde::str")]
    pub mid: Decimal,
}

/// `{"price":"…"}`.
#[derive(Debug, Deserialize, Clone)]
pub struct PriceResponse {
    /// Price.
    #[serde(with = "rust_decimal::serde::str")]
    pub price: Decimal,
}

/// `{"spread":"…"}`.
#[derive(Debug, Deserialize, Clone)]
pub struct SpreadResponse {
    /// Spread.
    #[serde(with = "rust_decimal::serde::str")]
    pub spread: Decimal,
}

/// `{"minimum_tick_size":0.01}`.
#[derive(Debug, Deserialize, Clone)]
pub struct TickSizeResponse {
    /// Tick size (a number or a string).
    pub minimum_tick_size: Decimal,
}

/// `{"neg_risk":true}`.
#[derive(Debug, Deserialize, Clone)]
pub struct NegRiskResponse {
    /// Neg-risk.
    pub neg_risk: bool,
}

/// One `(token, side)` of `get_prices`.
#[derive(Debug, Serialize, Deserialize, Clone)]
pub struct BookParams {
    /// Token id.
    pub token_id: String,
    /// Side.
    pub side: Side,
}
