//! `create_order`, `create_market_order`, `post_order`, `create_and_post_order` over
//! [`crate::order`]: V2 orders (or what `/version` says), exact decimal amounts, no panics.

use alloy_primitives::Address;
use anyhow::{Context as _, Result as ClientResult, anyhow};
use rust_decimal::Decimal;
use serde_json::Value;

use super::client::{ClobClient, body_value, err};
use super::signed::SignedOrderRequest;
use super::types::{
    CreateOrderOptions, ExtraOrderArgs, MarketOrderArgs, OrderArgs, OrderType, PostOrder,
};
use crate::clob::{Client, Level, Req};
use crate::fixed::{Price, Size};
use crate::order::{
    LimitOrder, MarketContext, MarketOrder, OrderError, OrderSigner, SignedOrder, market_price,
};
use crate::sign::wallet::Wallet;
use crate::types::{Chain, ExchangeVersion, Side, TickSize};

/// What `post_order` needs to rebuild and re-sign an order after `order_version_mismatch`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rebuild {
    Limit {
        ctx: MarketContext,
        req: LimitOrder,
    },
    Market {
        ctx: MarketContext,
        req: MarketOrder,
    },
}

fn tick_from_decimal(d: Decimal) -> ClientResult<TickSize> {
    Price::from_decimal(d)
        .ok()
        .and_then(TickSize::from_price)
        .ok_or_else(|| anyhow!("unsupported tick size {d}"))
}

/// Nearest grid price, ties toward zero (0.1.1 rounds `MidpointTowardZero` at the tick's
/// decimals; this is the same on decimal ticks and also covers 0.005 and 0.0025).
fn round_to_tick(price: Price, tick: TickSize) -> Price {
    let lo = tick.floor(price);
    let hi = tick.ceil(price);
    if price.as_micros() - lo.as_micros() > hi.as_micros() - price.as_micros() {
        hi
    } else {
        lo
    }
}

fn order_err(e: OrderError) -> anyhow::Error {
    err(crate::http::Error::order(e))
}

fn extras_of(extras: Option<ExtraOrderArgs>) -> ClientResult<(u64, u64, Address)> {
    let ex = extras.unwrap_or_default();
    let taker: Address = ex
        .taker
        .parse()
        .map_err(|_| anyhow!("Invalid taker address: {}", ex.taker))?;
    let nonce = u64::try_from(ex.nonce)
        .map_err(|_| anyhow!("nonce {} does not fit the order's nonce field", ex.nonce))?;
    Ok((nonce, u64::from(ex.fee_rate_bps), taker))
}

pub(crate) fn to_request(signed: &SignedOrder, rebuild: Option<Rebuild>) -> SignedOrderRequest {
    let o = signed.order();
    SignedOrderRequest {
        salt: o.salt,
        maker: o.maker.to_checksum(None),
        signer: o.signer.to_checksum(None),
        taker: o.taker.to_checksum(None),
        token_id: o.token_id.as_str().to_owned(),
        maker_amount: o.maker_amount.to_string(),
        taker_amount: o.taker_amount.to_string(),
        expiration: o.expiration.to_string(),
        nonce: o.nonce.to_string(),
        fee_rate_bps: o.fee_rate_bps.to_string(),
        side: o.side.as_str().to_owned(),
        signature_type: o.signature_type.as_u8(),
        signature: signed.signature().to_hex_string(),
        timestamp: o.timestamp_ms.to_string(),
        metadata: o.metadata.to_string(),
        builder: o.builder.to_string(),
        version: o.version,
        rebuild,
    }
}

impl ClobClient {
    fn order_signer(&self) -> ClientResult<OrderSigner> {
        let signer = self.need_signer()?.clone();
        let chain = self
            .chain_id
            .and_then(Chain::from_id)
            .ok_or_else(|| anyhow!("No contract found with given chain_id and neg_risk"))?;
        OrderSigner::new(signer, chain, Wallet::Eoa).map_err(order_err)
    }

    /// Tick size, neg-risk and exchange version: from `options` and the caches first; a
    /// request only for what is missing.
    async fn resolve(
        &self,
        c: &Client,
        token_id: &str,
        options: Option<&CreateOrderOptions>,
    ) -> ClientResult<MarketContext> {
        let mut did_io = false;
        let tick = match options.and_then(|o| o.tick_size) {
            Some(d) => {
                let t = tick_from_decimal(d)?;
                if let Some(min) = c.cached_tick_size(token_id) {
                    if t.as_micros() < min.as_micros() {
                        return Err(anyhow!(
                            "Tick size {t} is smaller than min_tick_size {min} for token_id: {token_id}"
                        ));
                    }
                }
                t
            }
            None => {
                did_io = true;
                c.tick_size(token_id)
                    .await
                    .map_err(err)
                    .context("Error fetching tick size")?
            }
        };
        let neg_risk = match options.and_then(|o| o.neg_risk) {
            Some(n) => n,
            None => {
                did_io = true;
                c.neg_risk(token_id).await.map_err(err)?
            }
        };
        let version = match c.cached_exchange_version() {
            Some(v) => v,
            // Already talking to the server: ask which generation it signs for.
            None if did_io => c.exchange_version().await.unwrap_or(ExchangeVersion::V2),
            // The caller supplied everything: no request; today's exchange is V2.
            None => ExchangeVersion::V2,
        };
        c.context_for(token_id, version, tick, neg_risk)
            .map_err(err)
    }

    /// Builds and signs a limit order (V2, or whatever `/version` says). With
    /// `options.tick_size` and `options.neg_risk` set, no request is made.
    pub async fn create_order(
        &self,
        order_args: &OrderArgs,
        expiration: Option<u64>,
        extras: Option<ExtraOrderArgs>,
        options: Option<&CreateOrderOptions>,
    ) -> ClientResult<SignedOrderRequest> {
        let os = self.order_signer()?;
        let c = self.http()?;
        let ctx = self.resolve(c, &order_args.token_id, options).await?;
        let tick = ctx.tick();
        let price = Price::from_decimal(order_args.price)
            .map_err(|_| anyhow!("Price is not in range of tick_size"))?;
        if !tick.in_range(price) {
            return Err(anyhow!("Price is not in range of tick_size"));
        }
        let size = Size::from_decimal(order_args.size)
            .map_err(|e| anyhow!("invalid size {}: {e}", order_args.size))?;
        let (nonce, fee, taker) = extras_of(extras)?;
        let mut req = LimitOrder::new(order_args.side.into(), round_to_tick(price, tick), size)
            .nonce(nonce)
            .fee_rate_bps(fee)
            .taker(taker);
        if let Some(e) = expiration.filter(|&e| e != 0) {
            req = req.order_type(crate::types::OrderType::Gtd).expiration(e);
        }
        let signed = os.limit_order(&ctx, &req).map_err(order_err)?;
        Ok(to_request(&signed, Some(Rebuild::Limit { ctx, req })))
    }

    /// Builds and signs a market BUY spending `amount`, priced by walking the asks from the
    /// best level.
    pub async fn create_market_order(
        &self,
        order_args: &MarketOrderArgs,
        extras: Option<ExtraOrderArgs>,
        options: Option<&CreateOrderOptions>,
    ) -> ClientResult<SignedOrderRequest> {
        let os = self.order_signer()?;
        let c = self.http()?;
        let ctx = self.resolve(c, &order_args.token_id, options).await?;
        let amount = Size::from_decimal(order_args.amount)
            .map_err(|e| anyhow!("invalid amount {}: {e}", order_args.amount))?;
        let book = c.book(&order_args.token_id).await.map_err(err)?;
        // REST books list levels worst first.
        let best_first = book.asks.iter().rev().map(|l| (l.price, l.size));
        let price = market_price(Side::Buy, amount, crate::types::OrderType::Fok, best_first)
            .map_err(|e| match e {
                OrderError::NoMatch | OrderError::EmptyBook => {
                    anyhow!(
                        "Not enough liquidity to create market order with amount {}",
                        order_args.amount
                    )
                }
                other => order_err(other),
            })?;
        if !ctx.tick().in_range(price) {
            return Err(anyhow!("Price is not in range of tick_size"));
        }
        let (nonce, fee, taker) = extras_of(extras)?;
        let req = MarketOrder::new(Side::Buy, crate::order::MarketAmount::Usdc(amount), price)
            .order_type(crate::types::OrderType::Fok)
            .nonce(nonce)
            .fee_rate_bps(fee)
            .taker(taker);
        let signed = os.market_order(&ctx, &req).map_err(order_err)?;
        Ok(to_request(&signed, Some(Rebuild::Market { ctx, req })))
    }

    /// `POST /order` (L2) with the HMAC over the exact body. Never retried blindly; on
    /// `order_version_mismatch` the order is rebuilt for the server's version, re-signed and
    /// posted once more.
    pub async fn post_order(
        &self,
        mut order: SignedOrderRequest,
        order_type: OrderType,
    ) -> ClientResult<Value> {
        let (c, creds) = self.need_l2()?;
        let owner = creds.api_key.clone();
        let rebuild = order.rebuild.take();
        let first = post(c, PostOrder::new(order, owner.clone(), order_type)).await;
        let Some(rebuild) = rebuild else {
            return first.map_err(err);
        };
        match first {
            Err(e) if e.is_order_version_mismatch() => {}
            Ok(v) if !mismatch_in(&v) => return Ok(v),
            Ok(_) => {}
            Err(e) => return Err(err(e)),
        }
        let os = self.order_signer()?;
        let signed = match rebuild {
            Rebuild::Limit { ctx, req } => {
                let ctx = c.refreshed_context(&ctx).await.map_err(err)?;
                os.limit_order(&ctx, &req)
            }
            Rebuild::Market { ctx, req } => {
                let ctx = c.refreshed_context(&ctx).await.map_err(err)?;
                os.market_order(&ctx, &req)
            }
        }
        .map_err(order_err)?;
        post(
            c,
            PostOrder::new(to_request(&signed, None), owner, order_type),
        )
        .await
        .map_err(err)
    }

    /// `create_order(args, None, None, None)` then `post_order(order, GTC)`.
    pub async fn create_and_post_order(&self, order_args: &OrderArgs) -> ClientResult<Value> {
        let order = self.create_order(order_args, None, None, None).await?;
        self.post_order(order, OrderType::GTC).await
    }
}

fn mismatch_in(v: &Value) -> bool {
    v.get("success").and_then(Value::as_bool) == Some(false)
        && v.get("errorMsg")
            .and_then(Value::as_str)
            .is_some_and(|m| m.contains("order_version_mismatch"))
}

async fn post(c: &Client, body: PostOrder) -> Result<Value, crate::http::Error> {
    // Serializing strings and numbers cannot fail.
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    let resp = c.send(&Req::post("/order", bytes).auth(Level::L2)).await?;
    Ok(body_value(&resp))
}
