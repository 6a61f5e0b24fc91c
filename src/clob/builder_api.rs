//! The builder program (docs.polymarket.com/developers/builders): builder API keys, a builder
//! code's fee rates, and the trades attributed to a builder code.
//!
//! Attribution itself is the `builder` field of every V2/V3 order, set once on the signer
//! with [`OrderSigner::builder_code`](crate::order::OrderSigner::builder_code).

use alloy_primitives::B256;
use futures_core::Stream;

use super::auth::{Credentials, Level};
use super::client::Client;
use super::orders::TradeFilter;
use super::paging::PageSpec;
use super::request::Req;
use super::types::{ApiKeyRaw, BuilderApiKey, BuilderFeeRate, BuilderTrade};
use crate::http::Error;
use crate::http::path_with;
use crate::http::{Page, SkippedRow, decode_page, decode_rows};

const BUILDER_KEY: &str = "/auth/builder-api-key";

impl Client {
    /// `POST /auth/builder-api-key` (L2): creates builder API credentials for the account.
    /// Not retried.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn create_builder_api_key(&self) -> Result<Credentials, Error> {
        let raw: ApiKeyRaw = self
            .json(&Req::post_empty(BUILDER_KEY).auth(Level::L2))
            .await?;
        Ok(Credentials::new(raw.api_key, raw.secret, raw.passphrase))
    }

    /// `GET /auth/builder-api-key` (L2): the account's builder keys, live and revoked. A row
    /// that does not decode is skipped and returned beside the keys.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status, or a body that is not an array.
    pub async fn builder_api_keys(&self) -> Result<(Vec<BuilderApiKey>, Vec<SkippedRow>), Error> {
        self.rows(&Req::get(BUILDER_KEY).auth(Level::L2), |b| decode_rows(b))
            .await
    }

    /// `DELETE /auth/builder-api-key` (L2): revokes the builder key whose credentials sign the
    /// request (set them with [`set_credentials`](Self::set_credentials) first).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport or status.
    pub async fn revoke_builder_api_key(&self) -> Result<(), Error> {
        self.send(&Req::delete(BUILDER_KEY, None).auth(Level::L2))
            .await
            .map(drop)
    }

    /// `GET /fees/builder-fees/{builder_code}` (public): the builder's maker and taker fees.
    ///
    /// # Errors
    ///
    /// A zero code ([`Error::is_argument`]); transport, status or decode.
    pub async fn builder_fee_rate(&self, builder_code: B256) -> Result<BuilderFeeRate, Error> {
        check_code(builder_code)?;
        let path = path_with("/fees/builder-fees/", &format!("{builder_code:#x}"));
        self.json(&Req::get(&path)).await
    }

    fn builder_trade_spec(
        &self,
        builder_code: B256,
        f: &TradeFilter,
    ) -> Result<PageSpec<BuilderTrade>, Error> {
        check_code(builder_code)?;
        let mut query = vec![("builder_code", format!("{builder_code:#x}"))];
        let opt = |q: &mut Vec<(&'static str, String)>, k, v: &Option<String>| {
            if let Some(v) = v {
                q.push((k, v.clone()));
            }
        };
        opt(&mut query, "id", &f.id);
        opt(&mut query, "maker_address", &f.maker_address);
        let market = f
            .market
            .as_deref()
            .map(|m| crate::types::padded_condition(m).into_owned());
        opt(&mut query, "market", &market);
        opt(&mut query, "asset_id", &f.asset_id);
        if let Some(b) = f.before {
            query.push(("before", b.to_string()));
        }
        if let Some(a) = f.after {
            query.push(("after", a.to_string()));
        }
        // py-clob-client-v2 sends no auth headers here, the Rust SDK sends L2: send L2 when
        // the client has credentials, so both kinds of deployment work.
        let auth = if self.inner.auth.creds().is_some() {
            Level::L2
        } else {
            Level::None
        };
        Ok(PageSpec {
            path: "/builder/trades",
            query,
            auth,
            decode: |b| decode_page::<BuilderTrade>(b),
        })
    }

    /// One page of `GET /builder/trades` for `builder_code`, narrowed by `filter`.
    ///
    /// # Errors
    ///
    /// A zero code; transport, status, or a body that is not a page.
    pub async fn builder_trades(
        &self,
        builder_code: B256,
        filter: &TradeFilter,
        cursor: Option<&str>,
    ) -> Result<Page<BuilderTrade>, Error> {
        let spec = self.builder_trade_spec(builder_code, filter)?;
        self.page(&spec, cursor).await
    }

    /// Every page of `GET /builder/trades`.
    ///
    /// # Errors
    ///
    /// A zero code, before any request.
    pub fn builder_trades_stream(
        &self,
        builder_code: B256,
        filter: &TradeFilter,
    ) -> Result<impl Stream<Item = Result<Page<BuilderTrade>, Error>> + Send + 'static, Error> {
        let spec = self.builder_trade_spec(builder_code, filter)?;
        Ok(self.page_stream(spec))
    }

    /// All trades attributed to `builder_code`, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// A zero code, or the first page error.
    pub async fn all_builder_trades(
        &self,
        builder_code: B256,
        filter: &TradeFilter,
    ) -> Result<(Vec<BuilderTrade>, Vec<SkippedRow>), Error> {
        let spec = self.builder_trade_spec(builder_code, filter)?;
        self.collect_all(spec).await
    }
}

fn check_code(code: B256) -> Result<(), Error> {
    if code == B256::ZERO {
        return Err(Error::argument(
            "builder_code is required and cannot be zero",
        ));
    }
    Ok(())
}
