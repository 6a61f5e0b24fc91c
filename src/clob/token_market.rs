//! Which market (condition id) each token belongs to, as far as the client has seen, and the
//! open-orders filter rule that needs it.
//!
//! From 2026-12-14 `GET /data/orders` refuses an `asset_id` filter without `market`
//! (announced with Polymarket's py-sdk `polymarket-client` v0.20.0 release: "an `asset_id`
//! filter on open orders now needs a `market`"). The client fills `market` in from what it has
//! learnt — [`Client::clob_market`], [`Client::market_by_token`] and
//! [`Client::set_token_market`] record the pairs — and otherwise refuses the call before any
//! I/O with an argument error naming the missing field.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::RwLock;

use super::orders::OrderFilter;
use super::transport::Client;
use crate::http::Error;

/// Token id → condition id. Grows with the tokens the caller touches (two per market), so it
/// is not evicted.
#[derive(Debug, Default)]
pub(crate) struct TokenMarkets(RwLock<HashMap<String, String>>);

impl TokenMarkets {
    pub(crate) fn insert(&self, token_id: &str, condition_id: &str) {
        if token_id.is_empty() || condition_id.is_empty() {
            return;
        }
        let mut map = self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.get(token_id).map(String::as_str) != Some(condition_id) {
            map.insert(token_id.to_owned(), condition_id.to_owned());
        }
    }

    pub(crate) fn get(&self, token_id: &str) -> Option<String> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(token_id)
            .cloned()
    }
}

impl Client {
    /// Records that `token_id` trades in the market `condition_id`, so open-order queries
    /// filtered by that token can name its market (required from 2026-12-14).
    ///
    /// ```
    /// let client = polyclob::clob::Client::builder().build()?;
    /// client.set_token_market("123", "0xabc");
    /// assert_eq!(client.cached_token_market("123").as_deref(), Some("0xabc"));
    /// # Ok::<(), polyclob::clob::Error>(())
    /// ```
    pub fn set_token_market(&self, token_id: &str, condition_id: &str) {
        self.inner.token_markets.insert(token_id, condition_id);
    }

    /// The market (condition id) recorded for `token_id`. Never does I/O.
    ///
    /// ```
    /// let client = polyclob::clob::Client::builder().build()?;
    /// assert!(client.cached_token_market("123").is_none());
    /// # Ok::<(), polyclob::clob::Error>(())
    /// ```
    #[must_use]
    pub fn cached_token_market(&self, token_id: &str) -> Option<String> {
        self.inner.token_markets.get(token_id)
    }

    /// `filter` as it can be sent: an `asset_id` without `market` gets the recorded market.
    ///
    /// # Errors
    /// An argument error naming `market` when the token's market is not known.
    pub(crate) fn complete_order_filter<'f>(
        &self,
        filter: &'f OrderFilter,
    ) -> Result<Cow<'f, OrderFilter>, Error> {
        match (&filter.asset_id, &filter.market) {
            (Some(asset), None) => match self.cached_token_market(asset) {
                Some(market) => Ok(Cow::Owned(OrderFilter {
                    market: Some(market),
                    ..filter.clone()
                })),
                None => Err(Error::argument(format!(
                    "open orders filtered by asset_id {asset} need the market field too \
                     (the exchange requires it from 2026-12-14), and this client has not seen \
                     that token's market: set OrderFilter::market, call Client::set_token_market, \
                     or look it up with Client::market_by_token"
                ))),
            },
            _ => Ok(Cow::Borrowed(filter)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_or_refuses() {
        let client = Client::builder().build().unwrap();
        let f = OrderFilter {
            asset_id: Some("7".into()),
            ..OrderFilter::default()
        };
        let e = client.complete_order_filter(&f).unwrap_err();
        assert!(e.is_argument());
        assert!(e.to_string().contains("market"), "{e}");
        client.set_token_market("7", "0xc");
        let done = client.complete_order_filter(&f).unwrap();
        assert_eq!(done.market.as_deref(), Some("0xc"));
        // Nothing to fill: borrowed as is.
        let plain = OrderFilter::default();
        assert!(matches!(
            client.complete_order_filter(&plain).unwrap(),
            Cow::Borrowed(_)
        ));
        // Empty ids are not recorded.
        client.set_token_market("", "0xd");
        assert!(client.cached_token_market("").is_none());
    }
}
