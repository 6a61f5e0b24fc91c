//! Posting orders (L2): one, a batch of up to 15, and the build–sign–post helpers that
//! handle `order_version_mismatch` (re-read `/version`, rebuild, re-sign, post once more).
//!
//! Order posts are never retried blindly: the exchange may have accepted the first one.

use super::auth::Level;
use super::transport::{Client, Req};
use super::types::PostOrderResponse;
use crate::http::{Error, Kind};
use crate::order::{
    LimitOrder, MarketContext, MarketOrder, OrderError, OrderSigner, SignedOrder, TokenId,
    write_batch_body,
};
use crate::types::{ExchangeVersion, TickSize};

impl Error {
    pub(crate) fn order(e: OrderError) -> Self {
        // The reason is the source's text; a message too would print it twice.
        Self::new(Kind::Argument).with_source(e)
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

    /// The market context for `token_id` with no I/O: the caller's tick size and neg-risk flag,
    /// and the cached exchange version (V2, today's exchange, when nothing is cached yet), or
    /// ExchangeV3 for a token known to be a position ID ([`set_position_token`](Self::set_position_token)).
    ///
    /// # Errors
    ///
    /// A token id that is not a decimal U256, or a tick size the version does not allow.
    pub fn market_context_with(
        &self,
        token_id: &str,
        tick: TickSize,
        neg_risk: bool,
    ) -> Result<MarketContext, Error> {
        let version = self
            .cached_exchange_version()
            .unwrap_or(ExchangeVersion::V2);
        self.context_for(token_id, version, tick, neg_risk)
    }

    pub(crate) fn context_for(
        &self,
        token_id: &str,
        version: ExchangeVersion,
        tick: TickSize,
        neg_risk: bool,
    ) -> Result<MarketContext, Error> {
        // Position-ID markets settle on ExchangeV3 whatever `/version` says about token orders.
        let version = if self.is_position_token(token_id) {
            ExchangeVersion::V3
        } else {
            version
        };
        let token = TokenId::parse(token_id.as_bytes()).map_err(|e| {
            Error::argument(format!(
                "Incorrect tokenId format: {token_id:?} ({})",
                e.reason()
            ))
        })?;
        MarketContext::new(self.chain(), version, token, tick, neg_risk).map_err(Error::order)
    }

    /// The market context for `token_id`: tick size, neg-risk and exchange version from the
    /// caches, fetched (and cached) only when missing. A token known to be a position ID
    /// ([`set_position_token`](Self::set_position_token), or learnt from a Gamma market by
    /// [`remember_trading`](Self::remember_trading)) is signed for ExchangeV3.
    ///
    /// # Errors
    ///
    /// Transport, status or decode errors of the lookups; a bad token id.
    pub async fn market_context(&self, token_id: &str) -> Result<MarketContext, Error> {
        let tick = self.tick_size(token_id).await?;
        let neg_risk = self.neg_risk(token_id).await?;
        let version = if self.is_position_token(token_id) {
            ExchangeVersion::V3
        } else {
            self.exchange_version().await?
        };
        self.context_for(token_id, version, tick, neg_risk)
    }

    /// Records that `token_id` is a position ID (a Gamma market with `version` `"v2"`), so
    /// orders on it are signed for ExchangeV3 (domain version `"3"`) rather than the token-ID
    /// exchange `/version` names. [`remember_trading`](Self::remember_trading) does this for the
    /// markets it is given.
    pub fn set_position_token(&self, token_id: &str) {
        if token_id.is_empty() {
            return;
        }
        self.inner
            .caches
            .positions
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(token_id.to_owned());
    }

    /// Whether `token_id` is known to be a position ID (see
    /// [`set_position_token`](Self::set_position_token)).
    #[must_use]
    pub fn is_position_token(&self, token_id: &str) -> bool {
        self.inner
            .caches
            .positions
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(token_id)
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

    /// Builds, signs and posts a limit order for `token_id`, using cached market parameters
    /// (fetched when missing; concurrent misses share one request). On
    /// `order_version_mismatch` it re-reads `/version`, rebuilds, re-signs and posts once more.
    ///
    /// # Errors
    ///
    /// The [pre-flight checks](Self::preflight) ([`Error::is_preflight`]; the exchange's
    /// "please use the deposit wallet flow" comes back as
    /// [`PreflightMismatch::DepositWalletRequired`](super::PreflightMismatch), naming the
    /// key's deposit wallets), validation
    /// ([`Error::is_argument`]), lookups, or the post (including the client-side rails:
    /// [`Error::is_throttled`], [`Error::is_heartbeat_guard`], [`Error::is_post_only_mode`]).
    pub async fn place_limit_order(
        &self,
        signer: &OrderSigner,
        token_id: &str,
        req: &LimitOrder,
    ) -> Result<PostOrderResponse, Error> {
        self.preflight(signer)?;
        let ctx = self.market_context(token_id).await?;
        let signed = signer.limit_order(&ctx, req).map_err(Error::order)?;
        match self.post_checked(&signed).await {
            Err(e) if e.is_order_version_mismatch() => {
                let ctx = self.refreshed_context(&ctx).await?;
                let signed = signer.limit_order(&ctx, req).map_err(Error::order)?;
                self.post_checked(&signed).await
            }
            r => r,
        }
        .map_err(|e| super::preflight::explain(signer, e))
    }

    /// As [`place_limit_order`](Self::place_limit_order) for a market (FOK/FAK) order (a BUY
    /// in pUSD or [shares](crate::order::MarketAmount::Shares), a SELL in shares).
    ///
    /// # Errors
    ///
    /// Validation ([`Error::is_argument`]), lookups, or the post (nothing to match:
    /// [`Error::is_no_match`]).
    pub async fn place_market_order(
        &self,
        signer: &OrderSigner,
        token_id: &str,
        req: &MarketOrder,
    ) -> Result<PostOrderResponse, Error> {
        self.preflight(signer)?;
        let ctx = self.market_context(token_id).await?;
        let signed = signer.market_order(&ctx, req).map_err(Error::order)?;
        match self.post_checked(&signed).await {
            Err(e) if e.is_order_version_mismatch() => {
                let ctx = self.refreshed_context(&ctx).await?;
                let signed = signer.market_order(&ctx, req).map_err(Error::order)?;
                self.post_checked(&signed).await
            }
            r => r,
        }
        .map_err(|e| super::preflight::explain(signer, e))
    }

    /// The same market with the exchange version re-read from the server.
    pub(crate) async fn refreshed_context(
        &self,
        ctx: &MarketContext,
    ) -> Result<MarketContext, Error> {
        // `/version` names the token-ID exchange; a position-ID order stays on ExchangeV3.
        let version = if ctx.version() == ExchangeVersion::V3 {
            ExchangeVersion::V3
        } else {
            self.refresh_exchange_version().await?
        };
        MarketContext::new(
            ctx.chain(),
            version,
            *ctx.token_id(),
            ctx.tick(),
            ctx.neg_risk(),
        )
        .map_err(Error::order)
    }

    /// Posts and turns a 200 with `success: false` and a version-mismatch message into an
    /// error, so both ways the server reports it are handled alike.
    async fn post_checked(&self, order: &SignedOrder) -> Result<PostOrderResponse, Error> {
        let r = self.post_order(order).await?;
        if !r.success && r.error_msg.contains("order_version_mismatch") {
            return Err(Error::new(Kind::Status)
                .with_message(r.error_msg)
                .with_path("/order"));
        }
        Ok(r)
    }
}
