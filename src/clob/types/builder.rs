//! The builder program: builder API keys, fee rates and attributed trades.
//!
//! In CLOB V2 attribution travels inside the signed order (the `builder` bytes32 field, see
//! [`OrderSigner::builder_code`](crate::order::OrderSigner::builder_code)); there are no
//! builder headers any more (docs.polymarket.com/v2-migration).

use serde::Deserialize;

use super::TradeStatus;
use crate::fixed::{Price, Size};
use crate::http::lenient;
use crate::types::{Side, Timestamp, timestamp_opt};

/// One row of `GET /auth/builder-api-key`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BuilderApiKey {
    /// The key (a UUID).
    #[serde(default, deserialize_with = "lenient::string")]
    pub key: String,
    /// When it was created, if sent.
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub created_at: Option<Timestamp>,
    /// When it was revoked; `None` while it is live.
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub revoked_at: Option<Timestamp>,
}

impl BuilderApiKey {
    /// Whether the key has been revoked.
    #[must_use]
    pub fn is_revoked(&self) -> bool {
        self.revoked_at.is_some()
    }
}

/// `GET /fees/builder-fees/{builder_code}`: the builder's fees on top of the exchange's, in
/// basis points of the notional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct BuilderFeeRate {
    /// Fee charged to makers, basis points.
    #[serde(
        default,
        alias = "builderMakerFeeRateBps",
        deserialize_with = "lenient::u64_lenient"
    )]
    pub builder_maker_fee_rate_bps: u64,
    /// Fee charged to takers, basis points.
    #[serde(
        default,
        alias = "builderTakerFeeRateBps",
        deserialize_with = "lenient::u64_lenient"
    )]
    pub builder_taker_fee_rate_bps: u64,
}

/// A raw 6-decimal integer amount (`"100000000"` = 100), as `/builder/trades` sends sizes
/// and fees (docs.polymarket.com/api-reference/trade/get-builder-trades).
fn raw_units<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
    lenient::u64_lenient(d).map(Size::from_micros)
}

/// `TRADE_STATUS_CONFIRMED` (the documented form) or `CONFIRMED`.
fn trade_status<'de, D: serde::Deserializer<'de>>(d: D) -> Result<TradeStatus, D::Error> {
    let t = lenient::text(d)?;
    Ok(TradeStatus::parse(
        t.strip_prefix("TRADE_STATUS_").unwrap_or(&t),
    ))
}

/// One row of `GET /builder/trades`: a trade attributed to a builder code.
///
/// Sizes and fees come as raw 6-decimal integers on this endpoint (`"size": "100000000"` is
/// 100 shares), the price as a decimal, as docs.polymarket.com documents it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BuilderTrade {
    /// Trade id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub id: String,
    /// Kind of trade, as sent.
    #[serde(default, deserialize_with = "lenient::string")]
    pub trade_type: String,
    /// Hash of the taker order.
    #[serde(default, deserialize_with = "lenient::string")]
    pub taker_order_hash: String,
    /// The builder (address or code, as sent).
    #[serde(default, deserialize_with = "lenient::string")]
    pub builder: String,
    /// Condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub market: String,
    /// Token id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_id: String,
    /// Side of the attributed order.
    #[serde(default, deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
    /// Shares.
    #[serde(default, deserialize_with = "raw_units")]
    pub size: Size,
    /// Notional in collateral.
    #[serde(default, deserialize_with = "raw_units")]
    pub size_usdc: Size,
    /// Price.
    #[serde(default, deserialize_with = "lenient::price")]
    pub price: Price,
    /// Settlement status.
    #[serde(default = "unknown_status", deserialize_with = "trade_status")]
    pub status: TradeStatus,
    /// Outcome name.
    #[serde(default, deserialize_with = "lenient::string")]
    pub outcome: String,
    /// Outcome index.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub outcome_index: u64,
    /// API key of the order's owner.
    #[serde(default, deserialize_with = "lenient::string")]
    pub owner: String,
    /// Maker address of the attributed order.
    #[serde(default, deserialize_with = "lenient::string")]
    pub maker: String,
    /// Settlement transaction.
    #[serde(default, deserialize_with = "lenient::string")]
    pub transaction_hash: String,
    /// Match time (unix seconds in a string, as the docs show).
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub match_time: Option<Timestamp>,
    /// Bucket index.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub bucket_index: u64,
    /// Fee, in the units the exchange charged it in.
    #[serde(default, deserialize_with = "raw_units")]
    pub fee: Size,
    /// Fee in collateral.
    #[serde(default, deserialize_with = "raw_units")]
    pub fee_usdc: Size,
    /// Error text, if any.
    #[serde(default, alias = "err_msg")]
    pub err_msg: Option<String>,
    /// Creation time, if sent.
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub created_at: Option<Timestamp>,
    /// Last update, if sent.
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub updated_at: Option<Timestamp>,
}

fn unknown_status() -> TradeStatus {
    TradeStatus::Unknown(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_the_clients_document() {
        let k: Vec<BuilderApiKey> = serde_json::from_str(
            r#"[{"key":"k1","createdAt":"2026-01-01T00:00:00Z","revokedAt":null},{"key":"k2","revokedAt":"2026-02-01T00:00:00Z"}]"#,
        )
        .unwrap();
        assert!(!k[0].is_revoked());
        assert!(k[1].is_revoked());
        let f: BuilderFeeRate = serde_json::from_str(
            r#"{"builder_maker_fee_rate_bps":0,"builder_taker_fee_rate_bps":"25"}"#,
        )
        .unwrap();
        assert_eq!(f.builder_taker_fee_rate_bps, 25);
        // The documented example row.
        let t: BuilderTrade = serde_json::from_str(
            r#"{"id":"trade-123","tradeType":"TAKER","side":"BUY","size":"100000000","sizeUsdc":"50000000",
                "price":"0.5","status":"TRADE_STATUS_CONFIRMED","outcomeIndex":0,"matchTime":"1767225600",
                "fee":"300000","feeUsdc":"150000","createdAt":"2024-01-01T00:00:00Z"}"#,
        )
        .unwrap();
        assert_eq!(t.side, Some(Side::Buy));
        assert_eq!(t.price, Price::new(500_000).unwrap());
        assert_eq!(t.size, Size::from_micros(100_000_000));
        assert_eq!(t.size_usdc, Size::from_micros(50_000_000));
        assert_eq!(t.fee_usdc, Size::from_micros(150_000));
        assert_eq!(t.status, TradeStatus::Confirmed);
        assert_eq!(
            t.created_at.map(|t| t.to_string()).as_deref(),
            Some("2024-01-01T00:00:00Z")
        );
        assert_eq!(t.match_time.map(Timestamp::as_secs), Some(1_767_225_600));
        assert!(serde_json::from_str::<BuilderTrade>(r#"{"price":"1.5"}"#).is_err());
    }
}
