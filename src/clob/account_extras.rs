//! Account extras of CLOB V2: the orders an account had resting before the V2 cutover
//! (`GET /data/pre-migration-orders`), and a token's fee curve (`fee_exponent`, read from
//! `GET /clob-markets/{condition_id}`'s `fd` field, as the official clients do).

use futures_core::Stream;

use super::auth::Level;
use super::error::Error;
use super::pagination::{Page, PageSpec, SkippedRow, decode_page};
use super::transport::Client;
use super::types::{FeeCurve, OpenOrder};

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
}
