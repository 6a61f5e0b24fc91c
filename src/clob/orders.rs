//! Authenticated (L2) order endpoints, one call per endpoint: posts (one order, a batch),
//! queries (open orders, the pre-migration orders, trades), cancels, scoring.
//!
//! From 2026-12-14 `GET /data/orders` refuses an `asset_id` filter without `market`
//! (announced with Polymarket's py-sdk `polymarket-client` v0.20.0 release: "an `asset_id`
//! filter on open orders now needs a `market`"). The client fills `market` in from what it has
//! learnt — [`Client::clob_market`], [`Client::market_by_token`] and
//! [`Client::set_token_market`] record the pairs — and otherwise refuses the call before any
//! I/O with an argument error naming the missing field.
//!
//! Order posts are never retried blindly: the exchange may have accepted the first one.

use std::borrow::Cow;
use std::collections::HashMap;

use futures_core::Stream;
use serde::Deserialize;

use super::auth::Level;
use super::client::Client;
use super::paging::PageSpec;
use super::request::Req;
use super::types::{CancelResponse, OpenOrder, PostOrderResponse, Trade};
use crate::http::{Error, Page, SkippedRow, decode_page, path_with};
use crate::order::{
    SignedOrder, write_batch_body, write_cancel_body_str, write_cancel_market_body,
};

/// Filters of `GET /data/orders`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderFilter {
    /// One order id.
    pub id: Option<String>,
    /// Condition id.
    pub market: Option<String>,
    /// Token id.
    pub asset_id: Option<String>,
}

/// Filters of `GET /data/trades`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TradeFilter {
    /// One trade id.
    pub id: Option<String>,
    /// Maker address.
    pub maker_address: Option<String>,
    /// Condition id.
    pub market: Option<String>,
    /// Token id.
    pub asset_id: Option<String>,
    /// Trades before this unix time.
    pub before: Option<u64>,
    /// Trades after this unix time.
    pub after: Option<u64>,
}

fn push(q: &mut Vec<(&'static str, String)>, k: &'static str, v: Option<&String>) {
    if let Some(v) = v {
        // Condition ids go out in the 64-hex form (a V2 `bytes31` id right-padded).
        let v = if k == "market" {
            crate::types::padded_condition(v).into_owned()
        } else {
            v.clone()
        };
        q.push((k, v));
    }
}

fn order_spec(f: &OrderFilter) -> PageSpec<OpenOrder> {
    let mut query = Vec::new();
    push(&mut query, "id", f.id.as_ref());
    push(&mut query, "market", f.market.as_ref());
    push(&mut query, "asset_id", f.asset_id.as_ref());
    PageSpec {
        path: "/data/orders",
        query,
        auth: Level::L2,
        decode: |b| decode_page::<OpenOrder>(b),
    }
}

fn trade_spec(f: &TradeFilter) -> PageSpec<Trade> {
    let mut query = Vec::new();
    push(&mut query, "id", f.id.as_ref());
    push(&mut query, "maker_address", f.maker_address.as_ref());
    push(&mut query, "market", f.market.as_ref());
    push(&mut query, "asset_id", f.asset_id.as_ref());
    if let Some(b) = f.before {
        query.push(("before", b.to_string()));
    }
    if let Some(a) = f.after {
        query.push(("after", a.to_string()));
    }
    PageSpec {
        path: "/data/trades",
        query,
        auth: Level::L2,
        decode: |b| decode_page::<Trade>(b),
    }
}

/// The most ids one `DELETE /orders` may carry (Polymarket changelog, 2026-06-15: "The maximum
/// number of order IDs per cancel request is now 1000"; the API reference page still says
/// 3000, the changelog is newer).
pub const MAX_CANCEL_IDS: usize = 1000;

fn json_body<T: serde::Serialize + ?Sized>(v: &T) -> Vec<u8> {
    // Plain strings and maps of strings always serialize.
    serde_json::to_vec(v).unwrap_or_default()
}

impl Client {
    /// `GET /data/order/{id}`.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn order(&self, order_id: &str) -> Result<OpenOrder, Error> {
        self.json(&Req::get(&path_with("/data/order/", order_id)).auth(Level::L2))
            .await
    }

    /// One page of `GET /data/orders`.
    ///
    /// An `asset_id` filter needs `market` too (from 2026-12-14): a missing one is filled in
    /// from the token's recorded market ([`Client::set_token_market`]).
    ///
    /// # Errors
    ///
    /// An argument error naming `market` when `asset_id` is set, `market` is not, and the
    /// token's market is unknown; missing credentials, transport, status, or a body that is
    /// not a page.
    pub async fn orders(
        &self,
        filter: &OrderFilter,
        cursor: Option<&str>,
    ) -> Result<Page<OpenOrder>, Error> {
        let filter = self.complete_order_filter(filter)?;
        self.page(&order_spec(&filter), cursor).await
    }

    /// Every page of `GET /data/orders`, each request signed afresh. The filter is completed
    /// as in [`Client::orders`]; when it cannot be, the stream yields that one error.
    pub fn orders_stream(
        &self,
        filter: &OrderFilter,
    ) -> impl Stream<Item = Result<Page<OpenOrder>, Error>> + Send + 'static {
        use futures_util::future::Either;
        match self.complete_order_filter(filter) {
            Ok(f) => Either::Left(self.page_stream(order_spec(&f))),
            Err(e) => Either::Right(futures_util::stream::once(std::future::ready(Err(e)))),
        }
    }

    /// All open orders matching `filter`, plus rows that did not decode. The filter is
    /// completed as in [`Client::orders`].
    ///
    /// # Errors
    ///
    /// The filter error of [`Client::orders`], or the first page error.
    pub async fn all_orders(
        &self,
        filter: &OrderFilter,
    ) -> Result<(Vec<OpenOrder>, Vec<SkippedRow>), Error> {
        let filter = self.complete_order_filter(filter)?;
        self.collect_all(order_spec(&filter)).await
    }

    /// One page of `GET /data/trades`.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status, or a body that is not a page.
    pub async fn trades(
        &self,
        filter: &TradeFilter,
        cursor: Option<&str>,
    ) -> Result<Page<Trade>, Error> {
        self.page(&trade_spec(filter), cursor).await
    }

    /// Every page of `GET /data/trades`.
    pub fn trades_stream(
        &self,
        filter: &TradeFilter,
    ) -> impl Stream<Item = Result<Page<Trade>, Error>> + Send + 'static {
        self.page_stream(trade_spec(filter))
    }

    /// All trades matching `filter`, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// The first page error.
    pub async fn all_trades(
        &self,
        filter: &TradeFilter,
    ) -> Result<(Vec<Trade>, Vec<SkippedRow>), Error> {
        self.collect_all(trade_spec(filter)).await
    }

    /// `DELETE /order`.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn cancel(&self, order_id: &str) -> Result<CancelResponse, Error> {
        let mut body = Vec::with_capacity(order_id.len() + 16);
        write_cancel_body_str(order_id, &mut body);
        let r: Result<CancelResponse, Error> = self
            .json(&Req::delete("/order", Some(body)).auth(Level::L2))
            .await;
        crate::telemetry::event!(
            INFO,
            "polyclob.order.cancel",
            ok = r
                .as_ref()
                .is_ok_and(|c| c.canceled.iter().any(|id| id == order_id)),
            order_id,
            status = r.as_ref().err().and_then(Error::status).unwrap_or(0),
        );
        r
    }

    /// `DELETE /orders`. The exchange takes at most [`MAX_CANCEL_IDS`] ids per request
    /// (Polymarket changelog, 2026-06-15), and with the rate-limit governor on a request must
    /// also fit the cancel bucket's burst (120 at the Standard tier): a longer list is
    /// de-duplicated and sent in chunks of the smaller size, one after the other, and the
    /// answers merged.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode of the first request. When a later
    /// chunk fails, the call still returns what was cancelled: that chunk's ids land in
    /// `not_canceled` as "outcome unknown: …" and the ids after it as "not sent: …".
    pub async fn cancel_orders(&self, order_ids: &[&str]) -> Result<CancelResponse, Error> {
        let chunk = self.inner.rails.cancel_chunk(MAX_CANCEL_IDS);
        if order_ids.len() > chunk {
            return self.cancel_orders_chunked(order_ids, chunk).await;
        }
        self.json(&Req::delete("/orders", Some(json_body(order_ids))).auth(Level::L2))
            .await
    }

    async fn cancel_orders_chunked(
        &self,
        order_ids: &[&str],
        chunk: usize,
    ) -> Result<CancelResponse, Error> {
        let mut seen = std::collections::HashSet::with_capacity(order_ids.len());
        let ids: Vec<&str> = order_ids
            .iter()
            .copied()
            .filter(|id| seen.insert(*id))
            .collect();
        let mut canceled = Vec::new();
        let mut not_canceled = HashMap::new();
        let mut chunks = ids.chunks(chunk).enumerate();
        while let Some((k, chunk)) = chunks.next() {
            let req = Req::delete("/orders", Some(json_body(chunk))).auth(Level::L2);
            match self.json::<CancelResponse>(&req).await {
                Ok(r) => {
                    canceled.extend(r.canceled);
                    not_canceled.extend(r.not_canceled);
                }
                Err(e) if k == 0 => return Err(e),
                Err(e) => {
                    for id in chunk {
                        not_canceled.insert((*id).to_owned(), format!("outcome unknown: {e}"));
                    }
                    for (_, rest) in chunks.by_ref() {
                        for id in rest {
                            not_canceled.insert(
                                (*id).to_owned(),
                                format!("not sent: an earlier chunk failed: {e}"),
                            );
                        }
                    }
                }
            }
        }
        Ok(CancelResponse {
            canceled,
            not_canceled,
        })
    }

    /// `DELETE /cancel-all`.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn cancel_all(&self) -> Result<CancelResponse, Error> {
        self.json(&Req::delete("/cancel-all", None).auth(Level::L2))
            .await
    }

    /// `DELETE /cancel-market-orders` for a market and/or a token (absent keys are omitted).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn cancel_market_orders(
        &self,
        market: Option<&str>,
        asset_id: Option<&str>,
    ) -> Result<CancelResponse, Error> {
        let mut body = Vec::new();
        write_cancel_market_body(market, asset_id, &mut body);
        self.json(&Req::delete("/cancel-market-orders", Some(body)).auth(Level::L2))
            .await
    }

    /// `GET /order-scoring`: whether a resting order earns rewards.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or a non-bool `scoring`.
    pub async fn order_scoring(&self, order_id: &str) -> Result<bool, Error> {
        #[derive(Deserialize)]
        struct S {
            scoring: bool,
        }
        let s: S = self
            .json(
                &Req::get("/order-scoring")
                    .query("order_id", order_id)
                    .auth(Level::L2),
            )
            .await?;
        Ok(s.scoring)
    }

    /// `POST /orders-scoring`: `order id → scoring`.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn orders_scoring(&self, order_ids: &[&str]) -> Result<HashMap<String, bool>, Error> {
        self.json(
            &Req::post("/orders-scoring", json_body(order_ids))
                .idempotent(true)
                .auth(Level::L2),
        )
        .await
    }
}

fn pre_migration_spec() -> PageSpec<OpenOrder> {
    PageSpec {
        path: "/data/pre-migration-orders",
        query: Vec::new(),
        auth: Level::L2,
        decode: |b| decode_page::<OpenOrder>(b),
    }
}

impl Client {
    fn owner(&self) -> Result<String, Error> {
        self.inner
            .auth
            .creds()
            .map(|k| k.creds.api_key().to_owned())
            .ok_or_else(|| {
                Error::auth("posting orders needs API credentials (L2): none were given")
            })
    }

    /// `POST /order` (L2) with the order's own type and flags. Not retried.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode. A refused order usually comes back
    /// as a 400 with the reason in [`Error::message`].
    pub async fn post_order(&self, order: &SignedOrder) -> Result<PostOrderResponse, Error> {
        let body = order.to_json(&self.owner()?);
        let r: Result<PostOrderResponse, Error> =
            self.json(&Req::post("/order", body).auth(Level::L2)).await;
        crate::telemetry::event!(
            INFO,
            "polyclob.order.post",
            ok = r.as_ref().is_ok_and(|p| p.success),
            order_id = r.as_ref().map_or("", |p| p.order_id.as_str()),
            order_status = ?r.as_ref().map(|p| &p.status).ok(),
            status = r.as_ref().err().and_then(Error::status).unwrap_or(0),
        );
        r
    }

    /// `POST /orders` (L2): up to 15 orders in one request. Not retried.
    ///
    /// # Errors
    ///
    /// An empty batch or more than 15 orders; missing credentials, transport, status or decode.
    pub async fn post_orders(
        &self,
        orders: &[SignedOrder],
    ) -> Result<Vec<PostOrderResponse>, Error> {
        let mut body = Vec::with_capacity(orders.len() * 900);
        write_batch_body(orders, &self.owner()?, &mut body).map_err(Error::order)?;
        self.json(&Req::post("/orders", body).auth(Level::L2)).await
    }

    /// One page of `GET /data/pre-migration-orders` (L2): the account's V1 orders from before
    /// the CLOB V2 cutover (docs.polymarket.com/v2-migration).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status, or a body that is not a page.
    pub async fn pre_migration_orders(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<OpenOrder>, Error> {
        self.page(&pre_migration_spec(), cursor).await
    }

    /// Every page of `GET /data/pre-migration-orders`.
    pub fn pre_migration_orders_stream(
        &self,
    ) -> impl Stream<Item = Result<Page<OpenOrder>, Error>> + Send + 'static {
        self.page_stream(pre_migration_spec())
    }

    /// All pre-migration orders, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// The first page error.
    pub async fn all_pre_migration_orders(
        &self,
    ) -> Result<(Vec<OpenOrder>, Vec<SkippedRow>), Error> {
        self.collect_all(pre_migration_spec()).await
    }

    /// Records that `token_id` trades in the market `condition_id`, so open-order queries
    /// filtered by that token can name its market (required from 2026-12-14).
    ///
    /// ```
    /// let client = polyclob::clob::Client::builder().build()?;
    /// client.set_token_market("123", "0xabc");
    /// assert_eq!(client.cached_token_market("123").as_deref(), Some("0xabc"));
    /// # Ok::<(), polyclob::http::Error>(())
    /// ```
    pub fn set_token_market(&self, token_id: &str, condition_id: &str) {
        self.inner
            .caches
            .token_markets
            .insert(token_id, condition_id);
    }

    /// The market (condition id) recorded for `token_id`. Never does I/O.
    ///
    /// ```
    /// let client = polyclob::clob::Client::builder().build()?;
    /// assert!(client.cached_token_market("123").is_none());
    /// # Ok::<(), polyclob::http::Error>(())
    /// ```
    #[must_use]
    pub fn cached_token_market(&self, token_id: &str) -> Option<String> {
        self.inner.caches.token_markets.get(token_id)
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
