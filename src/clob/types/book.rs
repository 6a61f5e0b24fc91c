//! Order books and the small price endpoints.

use serde::{Deserialize, Deserializer};

use crate::book::BookMeta;
use crate::fixed::{Price, Size};
use crate::http::lenient;
use crate::types::{Protocol, ProtocolError, Side, TickSize};

/// One price level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct BookLevel {
    /// Price.
    #[serde(deserialize_with = "lenient::price")]
    pub price: Price,
    /// Size in shares.
    #[serde(deserialize_with = "lenient::size")]
    pub size: Size,
}

/// `GET /book`: one token's book. Levels are as the server sends them (worst first); a
/// malformed level fails the book (a book missing a level would look whole and price
/// wrong), which `POST /books` then reports as a skipped row.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct BookSummary {
    /// Condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub market: String,
    /// Token id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_id: String,
    /// Server timestamp in milliseconds.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub timestamp: u64,
    /// BookSummary hash.
    #[serde(default, deserialize_with = "lenient::string")]
    pub hash: String,
    /// Bids, worst (lowest) first.
    #[serde(default, deserialize_with = "levels")]
    pub bids: Vec<BookLevel>,
    /// Asks, worst (highest) first.
    #[serde(default, deserialize_with = "levels")]
    pub asks: Vec<BookLevel>,
    /// Smallest accepted order.
    #[serde(default, deserialize_with = "lenient::size_opt")]
    pub min_order_size: Option<Size>,
    /// The tick size.
    #[serde(default, deserialize_with = "lenient::tick_opt")]
    pub tick_size: Option<TickSize>,
    /// Neg-risk market.
    #[serde(default)]
    pub neg_risk: Option<bool>,
    /// Last trade price.
    #[serde(default, deserialize_with = "lenient::price_opt")]
    pub last_trade_price: Option<Price>,
    /// The book's protocol `version` as sent: `"v2"` on Protocol V2 markets, empty on CTF
    /// books (which omit it). [`Self::protocol`] reads it.
    #[serde(default, deserialize_with = "lenient::string")]
    pub version: String,
}

impl BookSummary {
    /// The book's protocol: V2 for `"version":"v2"`, CTF when `version` is absent.
    ///
    /// # Errors
    /// [`ProtocolError::UnknownVersion`] for any other `version`.
    pub fn protocol(&self) -> Result<Protocol, ProtocolError> {
        Protocol::of_book((!self.version.is_empty()).then_some(self.version.as_str()))
    }

    /// What verifying this market's WS `book` hashes needs ([`BookMeta`]): the minimum order
    /// size, neg-risk flag, protocol, tick size and last trade price of this snapshot.
    ///
    /// # Errors
    /// [`ProtocolError::UnknownVersion`] for an unknown `version`.
    pub fn book_meta(&self) -> Result<BookMeta, ProtocolError> {
        let mut meta = BookMeta::new(
            self.min_order_size.unwrap_or(Size::ZERO),
            self.neg_risk.unwrap_or(false),
        )
        .with_protocol(self.protocol()?);
        if let Some(t) = self.tick_size {
            meta = meta.with_tick_size(t);
        }
        if let Some(p) = self.last_trade_price {
            meta = meta.with_last_trade_price(p);
        }
        Ok(meta)
    }

    /// The best bid (the last of the worst-first bids, or the highest if unordered).
    #[must_use]
    pub fn best_bid(&self) -> Option<BookLevel> {
        self.bids.iter().copied().max_by_key(|l| l.price)
    }

    /// The best ask.
    #[must_use]
    pub fn best_ask(&self) -> Option<BookLevel> {
        self.asks.iter().copied().min_by_key(|l| l.price)
    }
}

/// A side's levels; `null` is none.
fn levels<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<BookLevel>, D::Error> {
    Option::<Vec<BookLevel>>::deserialize(d).map(Option::unwrap_or_default)
}

/// `GET /last-trade-price` and each row of `POST /last-trades-prices`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct LastTradeInfo {
    /// Token id (batch form only).
    #[serde(default, deserialize_with = "lenient::string")]
    pub token_id: String,
    /// Price of the last trade.
    #[serde(default, deserialize_with = "lenient::price_opt")]
    pub price: Option<Price>,
    /// Taker side of the last trade.
    #[serde(default, deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
}

/// One point of `GET /prices-history`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct PricePoint {
    /// Unix seconds.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub t: u64,
    /// Price.
    #[serde(default, deserialize_with = "lenient::price")]
    pub p: Price,
}

/// The `interval` of `GET /prices-history`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Interval {
    /// `1m`.
    OneMinute,
    /// `1h`.
    OneHour,
    /// `6h`.
    SixHours,
    /// `1d`.
    OneDay,
    /// `1w`.
    OneWeek,
    /// `max`.
    Max,
}

impl Interval {
    /// The wire name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::OneMinute => "1m",
            Self::OneHour => "1h",
            Self::SixHours => "6h",
            Self::OneDay => "1d",
            Self::OneWeek => "1w",
            Self::Max => "max",
        }
    }
}

/// The time range of `GET /prices-history`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HistoryRange {
    /// A named interval ending now.
    Interval(Interval),
    /// `startTs..endTs`, unix seconds.
    Between {
        /// Start, unix seconds.
        start: u64,
        /// End, unix seconds.
        end: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_level_fails_the_book_never_thins_it() {
        let book = |bids: &str| {
            serde_json::from_str::<BookSummary>(&format!(
                r#"{{"market":"0xc","asset_id":"1","timestamp":"1700000000123","hash":"h",
                "bids":{bids},"asks":[{{"price":"0.9","size":"1"}}],"tick_size":"0.01",
                "neg_risk":false,"min_order_size":"5"}}"#
            ))
        };
        let e = book(r#"[{"price":"0.1","size":"5"},{"price":"x","size":"1"}]"#).unwrap_err();
        assert!(e.to_string().contains("price"), "{e}");
        assert!(book(r#"[{"price":"0.1","size":"5"},"junk"]"#).is_err());
        assert!(book("null").unwrap().bids.is_empty());
        let b = book(r#"[{"price":"0.1","size":"5"},{"price":"0.2","size":"7.5"}]"#).unwrap();
        assert_eq!(b.bids.len(), 2);
        assert_eq!(b.asks.len(), 1);
        assert_eq!(b.timestamp, 1_700_000_000_123);
        assert_eq!(b.tick_size, Some(TickSize::Hundredth));
        assert_eq!(b.best_bid().map(|l| l.price), Price::new(200_000));
        assert_eq!(
            b.best_ask().map(|l| l.size),
            Some(Size::from_micros(1_000_000))
        );
    }
}
