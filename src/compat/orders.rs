//! `create_order`, `create_market_order`, `post_order`, `create_and_post_order`.

use anyhow::{Result as ClientResult, anyhow};
use serde_json::Value;

use super::client::ClobClient;
use super::signed::SignedOrderRequest;
use super::types::{CreateOrderOptions, ExtraOrderArgs, MarketOrderArgs, OrderArgs, OrderType};

/// What `post_order` needs to rebuild and re-sign an order after `order_version_mismatch`.
#[derive(Clone, Debug)]
pub(crate) struct Rebuild;

impl ClobClient {
    /// Builds and signs a limit order (V2, or whatever `/version` says). With
    /// `options.tick_size` and `options.neg_risk` set, no request is made.
    pub async fn create_order(
        &self,
        order_args: &OrderArgs,
        expiration: Option<u64>,
        extras: Option<ExtraOrderArgs>,
        options: Option<&CreateOrderOptions>,
    ) -> ClientResult<SignedOrderRequest> {
        self.need_signer()?;
        let _ = (order_args, expiration, extras, options);
        Err(anyhow!("order building is not available in this build yet"))
    }

    /// Builds and signs a market BUY spending `amount`, priced by walking the book from the
    /// best ask.
    pub async fn create_market_order(
        &self,
        order_args: &MarketOrderArgs,
        extras: Option<ExtraOrderArgs>,
        options: Option<&CreateOrderOptions>,
    ) -> ClientResult<SignedOrderRequest> {
        self.need_signer()?;
        let _ = (order_args, extras, options);
        Err(anyhow!("order building is not available in this build yet"))
    }

    /// `POST /order` (L2). Never retried blindly; on `order_version_mismatch` the order is
    /// rebuilt for the new version, re-signed and posted once more.
    pub async fn post_order(&self, order: SignedOrderRequest, order_type: OrderType) -> ClientResult<Value> {
        let (_, creds) = self.need_l2()?;
        let _ = (order, order_type, creds);
        Err(anyhow!("order posting is not available in this build yet"))
    }

    /// `create_order(args, None, None, None)` then `post_order(order, GTC)`.
    pub async fn create_and_post_order(&self, order_args: &OrderArgs) -> ClientResult<Value> {
        let order = self.create_order(order_args, None, None, None).await?;
        self.post_order(order, OrderType::GTC).await
    }
}
