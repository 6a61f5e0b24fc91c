//! Market contexts: what an order on a token is signed with (tick size, neg-risk flag,
//! exchange version), from the caches or fetched once, and the tokens known to be position
//! IDs (signed for ExchangeV3).

use std::time::Instant;

use super::client::Client;
use crate::http::Error;
use crate::order::{MarketContext, TokenId};
use crate::types::{ExchangeVersion, TickSize};

impl Client {
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
    /// [`remember_contexts`](Self::remember_contexts)) is signed for ExchangeV3.
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
    /// exchange `/version` names. [`remember_contexts`](Self::remember_contexts) does this for the
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

    /// Seeds this client's tick-size and neg-risk caches (and, for token-ID markets, the
    /// exchange-version cache when it is empty) from prepared contexts (a Gamma market's
    /// `trading(..)?.contexts`), so that [`market_context`](Self::market_context) on these
    /// tokens, and the orders an account places on them, make no metadata request.
    ///
    /// ```
    /// use polyclob::gamma::GammaMarket;
    /// use polyclob::types::{Chain, ExchangeVersion};
    ///
    /// let m: GammaMarket = serde_json::from_str(r#"{"clobTokenIds":["11","22"],"orderPriceMinTickSize":"0.001"}"#)?;
    /// let client = polyclob::clob::Client::builder().host("http://127.0.0.1:1").build()?;
    /// client.remember_contexts(&m.trading(Chain::Polygon, ExchangeVersion::V2)?.contexts);
    /// assert_eq!(client.cached_tick_size("22").map(|t| t.as_str()), Some("0.001"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn remember_contexts(&self, contexts: &[MarketContext]) {
        let now = Instant::now();
        let caches = &self.inner.caches;
        for ctx in contexts {
            let token = ctx.token_id().as_str().to_owned();
            caches.tick.insert(token.clone(), ctx.tick(), now);
            caches.neg_risk.insert(token, ctx.neg_risk(), now);
            // V3 is chosen per market, not by `/version`: never cache it as the CLOB's answer,
            // but remember the token, so later orders on it are signed for ExchangeV3.
            if ctx.version() == ExchangeVersion::V3 {
                self.set_position_token(ctx.token_id().as_str());
            } else if caches.version.get(&(), now).is_none() {
                caches.version.insert((), ctx.version(), now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Chain;

    fn ctx(token: &str, version: ExchangeVersion) -> MarketContext {
        let token = TokenId::parse(token.as_bytes()).unwrap();
        MarketContext::new(Chain::Polygon, version, token, TickSize::Hundredth, false).unwrap()
    }

    #[tokio::test]
    async fn a_remembered_position_market_is_signed_for_v3_without_asking_version() {
        // No server listens on port 1: any metadata request would fail the call.
        let client = Client::builder()
            .host("http://127.0.0.1:1")
            .build()
            .unwrap();
        let v3 = [ctx("5", ExchangeVersion::V3), ctx("6", ExchangeVersion::V3)];
        client.remember_contexts(&v3);
        assert!(client.is_position_token("5") && client.is_position_token("6"));
        assert!(!client.is_position_token("11"));
        // V3 never becomes the CLOB's `/version` answer.
        assert_eq!(client.cached_exchange_version(), None);
        let c = client.market_context("6").await.unwrap();
        assert_eq!(c.version(), ExchangeVersion::V3);
        let c = client
            .market_context_with("5", TickSize::Hundredth, false)
            .unwrap();
        assert_eq!(c.version(), ExchangeVersion::V3);

        client.remember_contexts(&[
            ctx("11", ExchangeVersion::V2),
            ctx("22", ExchangeVersion::V2),
        ]);
        let c = client.market_context("22").await.unwrap();
        assert_eq!(c.version(), ExchangeVersion::V2);
        assert_eq!(
            client.market_context("6").await.unwrap().version(),
            ExchangeVersion::V3
        );
    }
}
