//! Account extras of CLOB V2: the orders an account had resting before the V2 cutover
//! (`GET /data/pre-migration-orders`), a token's fee curve (`fee_exponent`, read from
//! `GET /clob-markets/{condition_id}`'s `fd` field, as the official clients do), and the
//! geoblock check (`GET https://polymarket.com/api/geoblock`, outside the CLOB host).

use futures_core::Stream;
use serde::Deserialize;

use super::auth::Level;
use super::pagination::{Page, PageSpec, SkippedRow, decode_page};
use super::transport::Client;
use super::types::{FeeCurve, OpenOrder};
use crate::http::Error;
use crate::http::decode;

/// Polymarket's web host, which answers the geoblock check.
pub const DEFAULT_GEOBLOCK_HOST: &str = "https://polymarket.com";

const GEOBLOCK_PATH: &str = "/api/geoblock";

/// `GET /api/geoblock`: whether orders from the caller's IP address are refused.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Geoblock {
    /// Whether orders from this address are refused.
    #[serde(default)]
    pub blocked: bool,
    /// The address the check saw.
    #[serde(default)]
    pub ip: String,
    /// ISO 3166-1 alpha-2 country code.
    #[serde(default)]
    pub country: String,
    /// Region or state code.
    #[serde(default)]
    pub region: String,
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

    /// The fee curve (`r`, `e`, taker-only) of the market that trades `token_id`:
    /// `GET /markets-by-token/{token_id}` then `GET /clob-markets/{condition_id}`. `None` when
    /// the market charges no curve fee.
    ///
    /// # Errors
    ///
    /// Transport, status or decode of either lookup.
    pub async fn fee_curve(&self, token_id: &str) -> Result<Option<FeeCurve>, Error> {
        let m = self.market_by_token(token_id).await?;
        Ok(self.clob_market(&m.condition_id).await?.fee)
    }

    /// `GET {host}/api/geoblock` (public; `host` is [`DEFAULT_GEOBLOCK_HOST`] in production):
    /// whether Polymarket refuses orders from this client's IP address, and where it places
    /// it. Missing fields read as empty (and `blocked` as false).
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not an object.
    pub async fn check_geoblock(&self, host: &str) -> Result<Geoblock, Error> {
        let url = format!("{}{GEOBLOCK_PATH}", host.trim_end_matches('/'));
        let rb = self.inner.http.request_url(reqwest::Method::GET, &url);
        let body = self
            .inner
            .http
            .execute(rb, GEOBLOCK_PATH, |_, _| {})
            .await?;
        decode(&body, GEOBLOCK_PATH)
    }
}
