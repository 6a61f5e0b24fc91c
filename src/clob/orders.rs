//! Authenticated (L2) order endpoints: queries, trades, cancels, scoring.

use std::collections::HashMap;

use futures_core::Stream;
use serde::Deserialize;

use super::auth::Level;
use super::error::Error;
use super::pagination::{Page, PageSpec, SkippedRow, decode_page};
use super::transport::{Client, Req, path_with};
use super::types::{CancelResponse, OpenOrder, Trade};

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
        q.push((k, v.clone()));
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
    /// # Errors
    ///
    /// Missing credentials, transport, status, or a body that is not a page.
    pub async fn orders(
        &self,
        filter: &OrderFilter,
        cursor: Option<&str>,
    ) -> Result<Page<OpenOrder>, Error> {
        self.page(&order_spec(filter), cursor).await
    }

    /// Every page of `GET /data/orders`, each request signed afresh.
    pub fn orders_stream(
        &self,
        filter: &OrderFilter,
    ) -> impl Stream<Item = Result<Page<OpenOrder>, Error>> + Send + 'static {
        self.page_stream(order_spec(filter))
    }

    /// All open orders matching `filter`, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// The first page error.
    pub async fn all_orders(
        &self,
        filter: &OrderFilter,
    ) -> Result<(Vec<OpenOrder>, Vec<SkippedRow>), Error> {
        self.collect_all(order_spec(filter)).await
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
        #[derive(serde::Serialize)]
        struct B<'a> {
            #[serde(rename = "orderID")]
            order_id: &'a str,
        }
        self.json(&Req::delete("/order", Some(json_body(&B { order_id }))).auth(Level::L2))
            .await
    }

    /// `DELETE /orders`.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn cancel_orders(&self, order_ids: &[&str]) -> Result<CancelResponse, Error> {
        self.json(&Req::delete("/orders", Some(json_body(order_ids))).auth(Level::L2))
            .await
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
        #[derive(serde::Serialize)]
        struct B<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            market: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            asset_id: Option<&'a str>,
        }
        let body = json_body(&B { market, asset_id });
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
