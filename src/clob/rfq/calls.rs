//! The RFQ endpoints on [`Client`] (all L2).

use serde::Serialize;

use super::amounts::{RfqAmounts, RfqOrderTerms, order_body};
use super::types::{RfqCreated, RfqQuote, RfqRequest, RfqState};
use crate::clob::auth::Level;
use crate::clob::client::Client;
use crate::clob::paging::PageSpec;
use crate::clob::request::Req;
use crate::fixed::{Price, Size};
use crate::http::Error;
use crate::http::{Page, SkippedRow, decode_page};
use crate::order::OrderSigner;
use crate::types::{ExchangeVersion, Side, SignatureType};

/// Filters of the RFQ lists. `ids` are request ids for `/rfq/data/requests` and quote ids
/// for the quote lists.
///
/// ```
/// use polyclob::clob::rfq::{RfqFilter, RfqState};
///
/// let f = RfqFilter { ids: vec!["r1".into()], state: Some(RfqState::Active), ..RfqFilter::default() };
/// assert_eq!(f.ids.len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RfqFilter {
    /// Request or quote ids (sent as repeated parameters).
    pub ids: Vec<String>,
    /// Condition ids (sent as repeated `markets`).
    pub markets: Vec<String>,
    /// Active or inactive only.
    pub state: Option<RfqState>,
    /// Smallest size in shares.
    pub size_min: Option<Size>,
    /// Largest size in shares.
    pub size_max: Option<Size>,
    /// Smallest size in collateral.
    pub size_usdc_min: Option<Size>,
    /// Largest size in collateral.
    pub size_usdc_max: Option<Size>,
    /// Lowest price.
    pub price_min: Option<Price>,
    /// Highest price.
    pub price_max: Option<Price>,
    /// Sort key (`price`, `expiry`, `size`, `created`).
    pub sort_by: Option<String>,
    /// Sort direction (`asc`, `desc`).
    pub sort_dir: Option<String>,
    /// Page size.
    pub limit: Option<u32>,
}

impl RfqFilter {
    fn query(&self, ids_key: &'static str) -> Vec<(&'static str, String)> {
        let mut q: Vec<(&'static str, String)> = Vec::new();
        q.extend(self.ids.iter().map(|i| (ids_key, i.clone())));
        q.extend(self.markets.iter().map(|m| ("markets", m.clone())));
        if let Some(s) = &self.state {
            q.push(("state", s.as_str().to_owned()));
        }
        let mut opt = |k: &'static str, v: Option<String>| {
            if let Some(v) = v {
                q.push((k, v));
            }
        };
        opt("sizeMin", self.size_min.map(|s| s.to_string()));
        opt("sizeMax", self.size_max.map(|s| s.to_string()));
        opt("sizeUsdcMin", self.size_usdc_min.map(|s| s.to_string()));
        opt("sizeUsdcMax", self.size_usdc_max.map(|s| s.to_string()));
        opt("priceMin", self.price_min.map(|p| p.to_string()));
        opt("priceMax", self.price_max.map(|p| p.to_string()));
        opt("sortBy", self.sort_by.clone());
        opt("sortDir", self.sort_dir.clone());
        opt("limit", self.limit.map(|l| l.to_string()));
        q
    }
}

fn requests_spec(f: &RfqFilter) -> PageSpec<RfqRequest> {
    PageSpec {
        path: "/rfq/data/requests",
        query: f.query("requestIds"),
        auth: Level::L2,
        decode: |b| decode_page::<RfqRequest>(b),
    }
}

fn quotes_spec(path: &'static str, f: &RfqFilter) -> PageSpec<RfqQuote> {
    PageSpec {
        path,
        query: f.query("quoteIds"),
        auth: Level::L2,
        decode: |b| decode_page::<RfqQuote>(b),
    }
}

const REQUESTER_QUOTES: &str = "/rfq/data/requester/quotes";
const QUOTER_QUOTES: &str = "/rfq/data/quoter/quotes";

fn to_json<T: Serialize>(v: &T) -> Vec<u8> {
    // Strings and integers only: serialization cannot fail.
    serde_json::to_vec(v).unwrap_or_default()
}

impl Client {
    // Private: the two public callers each take six arguments.
    #[allow(clippy::too_many_arguments)]
    async fn rfq_create(
        &self,
        path: &'static str,
        request_id: Option<&str>,
        token_id: &str,
        side: Side,
        price: Price,
        size: Size,
        sig: SignatureType,
    ) -> Result<RfqCreated, Error> {
        let tick = self.tick_size(token_id).await?;
        let a = RfqAmounts::new(token_id, side, price, size, tick)?;
        let body = a.to_json(request_id, sig);
        self.json(&Req::post(path, body).auth(Level::L2)).await
    }

    /// `POST /rfq/request`: asks quoters for a price to `side` `size` shares of `token_id`
    /// at `price`. `sig` is the account's wallet kind (`userType`). Not retried.
    ///
    /// # Errors
    ///
    /// Price off the market's tick grid or a size below one lot ([`Error::is_argument`]);
    /// the tick-size lookup; credentials, transport, status or decode.
    pub async fn rfq_create_request(
        &self,
        token_id: &str,
        side: Side,
        price: Price,
        size: Size,
        sig: SignatureType,
    ) -> Result<RfqCreated, Error> {
        self.rfq_create("/rfq/request", None, token_id, side, price, size, sig)
            .await
    }

    /// `POST /rfq/quote`: answers request `request_id` with `side` `size` shares of
    /// `token_id` at `price`. Not retried.
    ///
    /// # Errors
    ///
    /// As [`rfq_create_request`](Self::rfq_create_request).
    pub async fn rfq_create_quote(
        &self,
        request_id: &str,
        token_id: &str,
        side: Side,
        price: Price,
        size: Size,
        sig: SignatureType,
    ) -> Result<RfqCreated, Error> {
        self.rfq_create(
            "/rfq/quote",
            Some(request_id),
            token_id,
            side,
            price,
            size,
            sig,
        )
        .await
    }

    /// `DELETE /rfq/request` with `{"requestId": …}`.
    ///
    /// # Errors
    ///
    /// Credentials, transport or status.
    pub async fn rfq_cancel_request(&self, request_id: &str) -> Result<(), Error> {
        let body = to_json(&serde_json::json!({ "requestId": request_id }));
        self.send(&Req::delete("/rfq/request", Some(body)).auth(Level::L2))
            .await
            .map(drop)
    }

    /// `DELETE /rfq/quote` with `{"quoteId": …}`.
    ///
    /// # Errors
    ///
    /// Credentials, transport or status.
    pub async fn rfq_cancel_quote(&self, quote_id: &str) -> Result<(), Error> {
        let body = to_json(&serde_json::json!({ "quoteId": quote_id }));
        self.send(&Req::delete("/rfq/quote", Some(body)).auth(Level::L2))
            .await
            .map(drop)
    }

    /// One page of `GET /rfq/data/requests`.
    ///
    /// # Errors
    ///
    /// Credentials, transport, status, or a body that is not a page.
    pub async fn rfq_requests(
        &self,
        filter: &RfqFilter,
        cursor: Option<&str>,
    ) -> Result<Page<RfqRequest>, Error> {
        self.page(&requests_spec(filter), cursor).await
    }

    /// Every RFQ request matching `filter`, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// The first page error.
    pub async fn all_rfq_requests(
        &self,
        filter: &RfqFilter,
    ) -> Result<(Vec<RfqRequest>, Vec<SkippedRow>), Error> {
        self.collect_all(requests_spec(filter)).await
    }

    /// One page of `GET /rfq/data/requester/quotes`: quotes on the account's requests.
    ///
    /// # Errors
    ///
    /// Credentials, transport, status, or a body that is not a page.
    pub async fn rfq_requester_quotes(
        &self,
        filter: &RfqFilter,
        cursor: Option<&str>,
    ) -> Result<Page<RfqQuote>, Error> {
        self.page(&quotes_spec(REQUESTER_QUOTES, filter), cursor)
            .await
    }

    /// Every quote on the account's requests, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// The first page error.
    pub async fn all_rfq_requester_quotes(
        &self,
        filter: &RfqFilter,
    ) -> Result<(Vec<RfqQuote>, Vec<SkippedRow>), Error> {
        self.collect_all(quotes_spec(REQUESTER_QUOTES, filter))
            .await
    }

    /// One page of `GET /rfq/data/quoter/quotes`: the account's own quotes.
    ///
    /// # Errors
    ///
    /// Credentials, transport, status, or a body that is not a page.
    pub async fn rfq_quoter_quotes(
        &self,
        filter: &RfqFilter,
        cursor: Option<&str>,
    ) -> Result<Page<RfqQuote>, Error> {
        self.page(&quotes_spec(QUOTER_QUOTES, filter), cursor).await
    }

    /// Every quote the account made, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// The first page error.
    pub async fn all_rfq_quoter_quotes(
        &self,
        filter: &RfqFilter,
    ) -> Result<(Vec<RfqQuote>, Vec<SkippedRow>), Error> {
        self.collect_all(quotes_spec(QUOTER_QUOTES, filter)).await
    }

    /// `GET /rfq/data/best-quote?requestId=…`: the best quote on a request.
    ///
    /// # Errors
    ///
    /// Credentials, transport, status or decode (a 404 when there is none).
    pub async fn rfq_best_quote(&self, request_id: &str) -> Result<RfqQuote, Error> {
        self.json(
            &Req::get("/rfq/data/best-quote")
                .query("requestId", request_id)
                .auth(Level::L2),
        )
        .await
    }

    /// `GET /rfq/config`: the server's RFQ configuration, as JSON.
    ///
    /// # Errors
    ///
    /// Credentials, transport, status or decode.
    pub async fn rfq_config(&self) -> Result<serde_json::Value, Error> {
        self.json(&Req::get("/rfq/config").auth(Level::L2)).await
    }

    async fn rfq_quote_by_id(&self, path: &'static str, quote_id: &str) -> Result<RfqQuote, Error> {
        let filter = RfqFilter {
            ids: vec![quote_id.to_owned()],
            ..RfqFilter::default()
        };
        let page = self.page(&quotes_spec(path, &filter), None).await?;
        page.data
            .into_iter()
            .find(|q| q.quote_id == quote_id)
            .ok_or_else(|| Error::argument(format!("RFQ quote {quote_id:?} not found")))
    }

    async fn rfq_sign_and_post(
        &self,
        path: &'static str,
        signer: &OrderSigner,
        terms: &RfqOrderTerms,
        request_id: &str,
        quote_id: &str,
        expiration: u64,
    ) -> Result<String, Error> {
        let owner = self
            .credentials()
            .ok_or_else(|| Error::auth("RFQ needs API credentials (L2): none were given"))?;
        let tick = self.tick_size(&terms.token_id).await?;
        let neg_risk = self.neg_risk(&terms.token_id).await?;
        let ctx = self.context_for(&terms.token_id, ExchangeVersion::V1, tick, neg_risk)?;
        // A Protocol V2 market's orders are ExchangeV3 orders, which the V1-shaped RFQ body
        // (taker, nonce, feeRateBps) cannot carry; neither the docs nor the SDKs give an RFQ
        // shape for them, so refuse rather than post a body the exchange cannot match.
        if ctx.version() == ExchangeVersion::V3 {
            return Err(Error::argument(format!(
                "RFQ orders are V1-shaped; token {} is a Protocol V2 position id (ExchangeV3) \
                 with no documented RFQ order shape",
                terms.token_id
            )));
        }
        let signed = terms.sign(signer, &ctx, expiration, None, None)?;
        let body = order_body(request_id, quote_id, owner.api_key(), &signed);
        let b = self.send(&Req::post(path, body).auth(Level::L2)).await?;
        Ok(String::from_utf8_lossy(&b).into_owned())
    }

    /// `POST /rfq/request/accept` (requester): looks the quote up among the quotes on the
    /// account's requests, signs the matching V1 order ([`RfqOrderTerms::accept`]) and posts
    /// it. `expiration` is unix seconds, 0 for none. Returns the server's answer. Not retried.
    ///
    /// # Errors
    ///
    /// Quote not found or not acceptable ([`Error::is_argument`]), order validation,
    /// lookups, credentials, transport or status.
    pub async fn rfq_accept_quote(
        &self,
        signer: &OrderSigner,
        request_id: &str,
        quote_id: &str,
        expiration: u64,
    ) -> Result<String, Error> {
        let quote = self.rfq_quote_by_id(REQUESTER_QUOTES, quote_id).await?;
        let terms = RfqOrderTerms::accept(&quote)?;
        self.rfq_sign_and_post(
            "/rfq/request/accept",
            signer,
            &terms,
            request_id,
            quote_id,
            expiration,
        )
        .await
    }

    /// `POST /rfq/quote/approve` (quoter): looks the quote up among the account's quotes,
    /// signs its V1 order ([`RfqOrderTerms::approve`]) and posts it; the exchange then
    /// settles the trade. Not retried.
    ///
    /// # Errors
    ///
    /// As [`rfq_accept_quote`](Self::rfq_accept_quote).
    pub async fn rfq_approve_order(
        &self,
        signer: &OrderSigner,
        request_id: &str,
        quote_id: &str,
        expiration: u64,
    ) -> Result<String, Error> {
        let quote = self.rfq_quote_by_id(QUOTER_QUOTES, quote_id).await?;
        let terms = RfqOrderTerms::approve(&quote)?;
        self.rfq_sign_and_post(
            "/rfq/quote/approve",
            signer,
            &terms,
            request_id,
            quote_id,
            expiration,
        )
        .await
    }
}
