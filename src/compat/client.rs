//! `ClobClient`: the polymarket-rs-client 0.1.1 surface over the native [`Client`].

use std::collections::HashMap;

use alloy_primitives::U256;
use anyhow::{Context as _, Result as ClientResult, anyhow};
use rust_decimal::Decimal;
use serde_json::Value;

use super::types::{
    ApiCreds, AssetType, BalanceAllowanceParams, BookParams, MidpointResponse, OpenOrder,
    OpenOrderParams, OrderBookSummary, PriceResponse, Side, SpreadResponse, TradeParams,
};
use crate::clob::types::AssetKind;
use crate::clob::{Client, Credentials, Level, PageSpec, Req};
use crate::http::path_with;
use crate::http::{Error, decode_page};
use crate::sign::{SignError, Signer};
use crate::types::{Chain, ExchangeVersion, contracts};

/// The polymarket-rs-client 0.1.1 client: same constructors, same 50 methods, fixed
/// behaviour where 0.1.1's was a bug: V2 orders, HMAC over the bytes sent, working pagination,
/// `Err` on non-2xx (downcasts to [`polyclob::http::Error`](crate::http::Error)), no panics.
///
/// ```no_run
/// use polyclob::ClobClient;
///
/// # async fn f() -> polyclob::ClientResult<()> {
/// let client = ClobClient::new("https://clob.polymarket.com");
/// let t = client.get_server_time().await?;
/// # Ok(()) }
/// ```
#[derive(Default)]
pub struct ClobClient {
    pub(crate) client: Option<Client>,
    setup_error: Option<String>,
    pub(crate) signer: Option<Signer>,
    /// Why the key given to `with_l1_headers` was refused (a `SignError` holds no key bytes).
    key_error: Option<SignError>,
    pub(crate) chain_id: Option<u64>,
    pub(crate) creds: Option<ApiCreds>,
}

impl core::fmt::Debug for ClobClient {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ClobClient")
            .field("host", &self.client.as_ref().map(Client::host))
            .field("signer", &self.signer)
            .field("chain_id", &self.chain_id)
            .field("creds", &self.creds)
            .finish_non_exhaustive()
    }
}

pub(crate) fn err(e: Error) -> anyhow::Error {
    anyhow::Error::new(e)
}

fn build(
    host: &str,
    chain_id: Option<u64>,
    signer: Option<Signer>,
) -> (Option<Client>, Option<String>) {
    let mut b = Client::builder()
        .host(host)
        .chain(chain_id.and_then(Chain::from_id).unwrap_or(Chain::Polygon));
    if let Some(s) = signer {
        b = b.signer(s);
    }
    match b.build() {
        Ok(c) => (Some(c), None),
        Err(e) => (None, Some(chain_text(&e))),
    }
}

/// An error and its causes on one line (`a: b: c`), each layer once.
fn chain_text(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        next = cause.source();
    }
    text
}

impl ClobClient {
    /// A client for public endpoints only.
    ///
    /// Like 0.1.1 (reqwest's `Client::new()`), every client of this type honours the proxy
    /// environment variables (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`, lower
    /// case too), read when it is created; unlike it, a loopback host always goes direct
    /// ([`Proxy`](crate::http::Proxy#where-it-applies)).
    #[must_use]
    pub fn new(host: &str) -> Self {
        let (client, setup_error) = build(host, None, None);
        Self {
            client,
            setup_error,
            ..Self::default()
        }
    }

    /// A client with a private key (hex, with or without `0x`) for L1 calls and order signing.
    /// A bad key does not panic: every call that needs it returns `Err("Invalid private key: …")`
    /// with the reason (wrong length, non-hex digit, not a valid key), never the key itself.
    #[must_use]
    pub fn with_l1_headers(host: &str, key: &str, chain_id: u64) -> Self {
        let (signer, key_error) = match Signer::from_hex(key) {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(e)),
        };
        let (client, setup_error) = build(host, Some(chain_id), signer.clone());
        Self {
            client,
            setup_error,
            signer,
            key_error,
            chain_id: Some(chain_id),
            creds: None,
        }
    }

    /// A client with a private key and API credentials for L2 calls.
    #[must_use]
    pub fn with_l2_headers(host: &str, key: &str, chain_id: u64, api_creds: ApiCreds) -> Self {
        let mut c = Self::with_l1_headers(host, key, chain_id);
        c.set_api_creds(api_creds);
        c
    }

    /// Sets (or replaces) the API credentials.
    pub fn set_api_creds(&mut self, api_creds: ApiCreds) {
        if let Some(c) = &self.client {
            c.set_credentials(Credentials::from(&api_creds));
        }
        self.creds = Some(api_creds);
    }

    /// The signer's address, lowercase `0x`-hex; `None` without a (valid) key.
    #[must_use]
    pub fn get_address(&self) -> Option<String> {
        self.signer.as_ref().map(|s| format!("{:#x}", s.address()))
    }

    fn contracts(&self) -> Option<&'static crate::types::Contracts> {
        let chain = Chain::from_id(self.chain_id?)?;
        Some(contracts(chain, self.cached_version()))
    }

    /// The exchange generation orders are signed for: the cached `/version`, else V2.
    pub(crate) fn cached_version(&self) -> ExchangeVersion {
        self.client
            .as_ref()
            .and_then(Client::cached_exchange_version)
            .unwrap_or(ExchangeVersion::V2)
    }

    /// Collateral (pUSD on V2) of the client's chain; `None` without a known chain.
    #[must_use]
    pub fn get_collateral_address(&self) -> Option<String> {
        self.contracts().map(|c| c.collateral.to_checksum(None))
    }

    /// Conditional-tokens contract of the client's chain.
    #[must_use]
    pub fn get_conditional_address(&self) -> Option<String> {
        self.contracts()
            .map(|c| c.conditional_tokens.to_checksum(None))
    }

    /// The (non-neg-risk) exchange orders are signed for.
    #[must_use]
    pub fn get_exchange_address(&self) -> Option<String> {
        self.contracts().map(|c| c.exchange.to_checksum(None))
    }

    pub(crate) fn http(&self) -> ClientResult<&Client> {
        self.client.as_ref().ok_or_else(|| match &self.setup_error {
            // Already reads "client setup failed: …" with its causes.
            Some(e) => anyhow!("{e}"),
            None => anyhow!("builder error: no host configured (ClobClient::default())"),
        })
    }

    pub(crate) fn need_signer(&self) -> ClientResult<&Signer> {
        if let Some(e) = self.key_error {
            // 0.1.1 panicked with "Invalid private key"; the text still starts so, then says
            // why (length, non-hex digit, not a valid secp256k1 scalar).
            return Err(match e {
                SignError::InvalidPrivateKey(why) => anyhow!("Invalid private key: {why}"),
                other => anyhow!("Invalid private key: {other}"),
            });
        }
        self.signer
            .as_ref()
            .ok_or_else(|| anyhow!("Signer is not set"))
    }

    pub(crate) fn need_l2(&self) -> ClientResult<(&Client, &ApiCreds)> {
        self.need_signer()?;
        let creds = self
            .creds
            .as_ref()
            .ok_or_else(|| anyhow!("API credentials not set."))?;
        Ok((self.http()?, creds))
    }

    /// Sends and returns the body as JSON (a non-JSON body becomes a JSON string).
    pub(crate) async fn value(&self, req: Req<'_>) -> ClientResult<Value> {
        let body = self.http()?.send(&req).await.map_err(err)?;
        Ok(body_value(&body))
    }

    async fn typed<T: serde::de::DeserializeOwned>(&self, req: Req<'_>) -> ClientResult<T> {
        self.http()?.json(&req).await.map_err(err)
    }

    /// `GET /`: `true` when the server answers 2xx.
    pub async fn get_ok(&self) -> bool {
        match &self.client {
            Some(c) => c.ok().await,
            None => false,
        }
    }

    /// `GET /time`.
    pub async fn get_server_time(&self) -> ClientResult<u64> {
        self.http()?.server_time().await.map_err(err)
    }

    /// `GET /midpoint`.
    pub async fn get_midpoint(&self, token_id: &str) -> ClientResult<MidpointResponse> {
        self.typed(Req::get("/midpoint").query("token_id", token_id))
            .await
    }

    /// `POST /midpoints`.
    pub async fn get_midpoints(
        &self,
        token_ids: &[String],
    ) -> ClientResult<HashMap<String, Decimal>> {
        self.typed(Req::post("/midpoints", token_body(token_ids)).idempotent(true))
            .await
    }

    /// `GET /price`.
    pub async fn get_price(&self, token_id: &str, side: Side) -> ClientResult<PriceResponse> {
        self.typed(
            Req::get("/price")
                .query("token_id", token_id)
                .query("side", side.as_str()),
        )
        .await
    }

    /// `POST /prices`.
    pub async fn get_prices(
        &self,
        book_params: &[BookParams],
    ) -> ClientResult<HashMap<String, HashMap<Side, Decimal>>> {
        let body = serde_json::to_vec(book_params).context("serializing book params")?;
        self.typed(Req::post("/prices", body).idempotent(true))
            .await
    }

    /// `GET /spread`.
    pub async fn get_spread(&self, token_id: &str) -> ClientResult<SpreadResponse> {
        self.typed(Req::get("/spread").query("token_id", token_id))
            .await
    }

    /// `POST /spreads`.
    pub async fn get_spreads(
        &self,
        token_ids: &[String],
    ) -> ClientResult<HashMap<String, Decimal>> {
        self.typed(Req::post("/spreads", token_body(token_ids)).idempotent(true))
            .await
    }

    /// The token's tick size (cached; `GET /tick-size` when unknown).
    pub async fn get_tick_size(&self, token_id: &str) -> ClientResult<Decimal> {
        let t = self.http()?.tick_size(token_id).await.map_err(err)?;
        Ok(t.as_price().to_decimal())
    }

    /// The token's neg-risk flag (cached; `GET /neg-risk` when unknown).
    pub async fn get_neg_risk(&self, token_id: &str) -> ClientResult<bool> {
        self.http()?.neg_risk(token_id).await.map_err(err)
    }

    /// `GET /book`.
    pub async fn get_order_book(&self, token_id: &str) -> ClientResult<OrderBookSummary> {
        self.typed(Req::get("/book").query("token_id", token_id))
            .await
    }

    /// `POST /books`.
    pub async fn get_order_books(
        &self,
        token_ids: &[String],
    ) -> ClientResult<Vec<OrderBookSummary>> {
        self.typed(Req::post("/books", token_body(token_ids)).idempotent(true))
            .await
    }

    /// `GET /last-trade-price`.
    pub async fn get_last_trade_price(&self, token_id: &str) -> ClientResult<Value> {
        self.value(Req::get("/last-trade-price").query("token_id", token_id))
            .await
    }

    /// `POST /last-trades-prices`.
    pub async fn get_last_trade_prices(&self, token_ids: &[String]) -> ClientResult<Value> {
        self.value(Req::post("/last-trades-prices", token_body(token_ids)).idempotent(true))
            .await
    }

    async fn market_page(
        &self,
        path: &'static str,
        next_cursor: Option<&str>,
    ) -> ClientResult<Value> {
        self.value(Req::get(path).query(
            "next_cursor",
            next_cursor.unwrap_or(crate::http::START_CURSOR),
        ))
        .await
    }

    /// One page of `GET /sampling-markets`.
    pub async fn get_sampling_markets(&self, next_cursor: Option<&str>) -> ClientResult<Value> {
        self.market_page("/sampling-markets", next_cursor).await
    }

    /// One page of `GET /sampling-simplified-markets`.
    pub async fn get_sampling_simplified_markets(
        &self,
        next_cursor: Option<&str>,
    ) -> ClientResult<Value> {
        self.market_page("/sampling-simplified-markets", next_cursor)
            .await
    }

    /// One page of `GET /markets`.
    pub async fn get_markets(&self, next_cursor: Option<&str>) -> ClientResult<Value> {
        self.market_page("/markets", next_cursor).await
    }

    /// One page of `GET /simplified-markets`.
    pub async fn get_simplified_markets(&self, next_cursor: Option<&str>) -> ClientResult<Value> {
        self.market_page("/simplified-markets", next_cursor).await
    }

    /// `GET /markets/{condition_id}`.
    pub async fn get_market(&self, condition_id: &str) -> ClientResult<Value> {
        self.value(Req::get(&path_with("/markets/", condition_id)))
            .await
    }

    /// `GET /markets/live-activity/{condition_id}` (the V2 path of 0.1.1's
    /// `/live-activity/events/{id}`).
    pub async fn get_market_trades_events(&self, condition_id: &str) -> ClientResult<Value> {
        self.value(Req::get(&path_with(
            "/markets/live-activity/",
            condition_id,
        )))
        .await
    }

    /// `POST /auth/api-key` (L1).
    pub async fn create_api_key(&self, nonce: Option<U256>) -> ClientResult<ApiCreds> {
        self.need_signer()?;
        let c = self
            .http()?
            .create_api_key_at(nonce.unwrap_or(U256::ZERO))
            .await
            .map_err(err)?;
        Ok(ApiCreds::from(&c))
    }

    /// `GET /auth/derive-api-key` (L1).
    pub async fn derive_api_key(&self, nonce: Option<U256>) -> ClientResult<ApiCreds> {
        self.need_signer()?;
        let c = self
            .http()?
            .derive_api_key_at(nonce.unwrap_or(U256::ZERO))
            .await
            .map_err(err)?;
        Ok(ApiCreds::from(&c))
    }

    /// Create, or derive when creating fails.
    pub async fn create_or_derive_api_key(&self, nonce: Option<U256>) -> ClientResult<ApiCreds> {
        self.need_signer()?;
        let c = self
            .http()?
            .create_or_derive_api_key_at(nonce.unwrap_or(U256::ZERO))
            .await
            .map_err(err)?;
        Ok(ApiCreds::from(&c))
    }

    /// `GET /auth/api-keys` (L2).
    pub async fn get_api_keys(&self) -> ClientResult<Vec<String>> {
        let (c, _) = self.need_l2()?;
        c.api_keys().await.map_err(err)
    }

    /// `DELETE /auth/api-key` (L2): the raw body.
    pub async fn delete_api_key(&self) -> ClientResult<String> {
        let (c, _) = self.need_l2()?;
        c.delete_api_key().await.map_err(err)
    }

    /// `DELETE /order` (L2).
    pub async fn cancel(&self, order_id: &str) -> ClientResult<Value> {
        self.need_l2()?;
        #[derive(serde::Serialize)]
        struct B<'a> {
            #[serde(rename = "orderID")]
            order_id: &'a str,
        }
        let body = serde_json::to_vec(&B { order_id })?;
        self.value(Req::delete("/order", Some(body)).auth(Level::L2))
            .await
    }

    /// `DELETE /orders` (L2). More than [`MAX_CANCEL_IDS`](crate::clob::MAX_CANCEL_IDS)
    /// ids (the exchange's limit since 2026-06-15) are de-duplicated and sent in chunks, the
    /// answers merged into one `{"canceled":[…],"not_canceled":{…}}`; a later chunk that
    /// fails is reported per id in `not_canceled`, as the native client does.
    pub async fn cancel_orders(&self, order_ids: &[String]) -> ClientResult<Value> {
        self.need_l2()?;
        if order_ids.len() <= crate::clob::MAX_CANCEL_IDS {
            let body = serde_json::to_vec(order_ids)?;
            return self
                .value(Req::delete("/orders", Some(body)).auth(Level::L2))
                .await;
        }
        let mut seen = std::collections::HashSet::with_capacity(order_ids.len());
        let ids: Vec<&String> = order_ids.iter().filter(|id| seen.insert(*id)).collect();
        let mut canceled = Vec::new();
        let mut not_canceled = serde_json::Map::new();
        let mut chunks = ids.chunks(crate::clob::MAX_CANCEL_IDS).enumerate();
        while let Some((k, chunk)) = chunks.next() {
            let body = serde_json::to_vec(chunk)?;
            match self
                .value(Req::delete("/orders", Some(body)).auth(Level::L2))
                .await
            {
                Ok(mut v) => {
                    if let Some(Value::Array(a)) = v.get_mut("canceled").map(Value::take) {
                        canceled.extend(a);
                    }
                    if let Some(Value::Object(o)) = v.get_mut("not_canceled").map(Value::take) {
                        not_canceled.extend(o);
                    }
                }
                Err(e) if k == 0 => return Err(e),
                Err(e) => {
                    for id in chunk {
                        not_canceled.insert((*id).clone(), format!("outcome unknown: {e}").into());
                    }
                    for (_, rest) in chunks.by_ref() {
                        for id in rest {
                            not_canceled.insert(
                                (*id).clone(),
                                format!("not sent: an earlier chunk failed: {e}").into(),
                            );
                        }
                    }
                }
            }
        }
        Ok(serde_json::json!({ "canceled": canceled, "not_canceled": not_canceled }))
    }

    /// `DELETE /cancel-all` (L2).
    pub async fn cancel_all(&self) -> ClientResult<Value> {
        self.need_l2()?;
        self.value(Req::delete("/cancel-all", None).auth(Level::L2))
            .await
    }

    /// `DELETE /cancel-market-orders` (L2); both keys are sent, `""` when absent.
    pub async fn cancel_market_orders(
        &self,
        market: Option<&str>,
        asset_id: Option<&str>,
    ) -> ClientResult<Value> {
        self.need_l2()?;
        #[derive(serde::Serialize)]
        struct B<'a> {
            market: &'a str,
            asset_id: &'a str,
        }
        let body = serde_json::to_vec(&B {
            market: market.unwrap_or(""),
            asset_id: asset_id.unwrap_or(""),
        })?;
        self.value(Req::delete("/cancel-market-orders", Some(body)).auth(Level::L2))
            .await
    }

    /// All open orders from `next_cursor` (default: the first page) to the last page. A row
    /// that does not decode fails the call (its page, index and reason in the error), as it
    /// did in 0.1.1: a `Vec` has no room to report it. An `asset_id` filter without `market` gets the token's
    /// market, which the exchange requires since 2026-12-14 (learnt by earlier calls, or one
    /// `GET /markets-by-token` lookup).
    pub async fn get_orders(
        &self,
        params: Option<&OpenOrderParams>,
        next_cursor: Option<&str>,
    ) -> ClientResult<Vec<OpenOrder>> {
        let (c, _) = self.need_l2()?;
        let mut query: Vec<(&'static str, String)> = params
            .map(|p| {
                p.to_query_params()
                    .into_iter()
                    .map(|(k, v)| (static_key(k), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        // Since 2026-12-14 the exchange refuses an `asset_id` filter without `market`, which
        // polymarket-rs-client callers never set: fill it from what the client has learnt, or
        // from one `GET /markets-by-token` lookup (cached for the next call).
        if let Some(asset) = params
            .filter(|p| p.market.is_none())
            .and_then(|p| p.asset_id.as_ref())
        {
            let market = match c.cached_token_market(asset) {
                Some(m) => m,
                None => {
                    c.market_by_token(asset)
                        .await
                        .with_context(|| {
                            format!("looking up the market of asset_id {asset} for /data/orders")
                        })?
                        .condition_id
                }
            };
            query.push(("market", market));
        }
        let spec = PageSpec::<OpenOrder> {
            path: "/data/orders",
            query,
            auth: Level::L2,
            decode: |b| decode_page::<OpenOrder>(b),
        };
        collect_from(c, &spec, next_cursor).await
    }

    /// `GET /data/order/{id}` (L2).
    pub async fn get_order(&self, order_id: &str) -> ClientResult<OpenOrder> {
        self.need_l2()?;
        self.typed(Req::get(&path_with("/data/order/", order_id)).auth(Level::L2))
            .await
    }

    /// All trades from `next_cursor` (default: the first page) to the last page, one JSON
    /// value per trade. `maker_address` is sent when set.
    pub async fn get_trades(
        &self,
        trade_params: Option<&TradeParams>,
        next_cursor: Option<&str>,
    ) -> ClientResult<Vec<Value>> {
        let (c, _) = self.need_l2()?;
        let mut query: Vec<(&'static str, String)> = Vec::new();
        if let Some(p) = trade_params {
            query = p
                .to_query_params()
                .into_iter()
                .map(|(k, v)| (static_key(k), v))
                .collect();
            if let Some(m) = &p.maker_address {
                query.push(("maker_address", m.clone()));
            }
        }
        let spec = PageSpec::<Value> {
            path: "/data/trades",
            query,
            auth: Level::L2,
            decode: |b| decode_page::<Value>(b),
        };
        collect_from(c, &spec, next_cursor).await
    }

    /// `GET /notifications?signature_type=0` (L2).
    pub async fn get_notifications(&self) -> ClientResult<Value> {
        self.need_l2()?;
        self.value(
            Req::get("/notifications")
                .query("signature_type", "0")
                .auth(Level::L2),
        )
        .await
    }

    /// `DELETE /notifications?ids=…` (L2).
    pub async fn drop_notifications(&self, ids: &[String]) -> ClientResult<Value> {
        self.need_l2()?;
        self.value(
            Req::delete("/notifications", None)
                .query("ids", &ids.join(","))
                .auth(Level::L2),
        )
        .await
    }

    fn balance_req(
        &self,
        path: &'static str,
        params: Option<BalanceAllowanceParams>,
    ) -> Req<'static> {
        let mut p = params.unwrap_or_default();
        if p.signature_type.is_none() {
            p.set_signature_type(0);
        }
        // The frozen `AssetType` has no V2 variant: an outcome balance of a token known to be
        // a Protocol V2 position id goes out as `CONDITIONAL-V2`, as the docs require.
        let v2 = matches!(p.asset_type, Some(AssetType::CONDITIONAL))
            && p.token_id
                .as_deref()
                .is_some_and(|t| self.client.as_ref().is_some_and(|c| c.is_position_token(t)));
        let mut req = Req::get(path).auth(Level::L2);
        for (k, v) in p.to_query_params() {
            let v = if k == "asset_type" && v2 {
                AssetKind::ConditionalV2.as_str().to_owned()
            } else {
                v
            };
            req = req.query(k, &v);
        }
        req
    }

    /// `GET /balance-allowance` (L2).
    pub async fn get_balance_allowance(
        &self,
        params: Option<BalanceAllowanceParams>,
    ) -> ClientResult<Value> {
        self.need_l2()?;
        self.value(self.balance_req("/balance-allowance", params))
            .await
    }

    /// `GET /balance-allowance/update` (L2).
    pub async fn update_balance_allowance(
        &self,
        params: Option<BalanceAllowanceParams>,
    ) -> ClientResult<Value> {
        self.need_l2()?;
        self.value(self.balance_req("/balance-allowance/update", params))
            .await
    }

    /// `GET /order-scoring` (L2); a non-bool answer is an `Err`, not a panic.
    pub async fn is_order_scoring(&self, order_id: &str) -> ClientResult<bool> {
        self.need_l2()?;
        let v = self
            .value(
                Req::get("/order-scoring")
                    .query("order_id", order_id)
                    .auth(Level::L2),
            )
            .await?;
        v.get("scoring")
            .and_then(Value::as_bool)
            .ok_or_else(|| anyhow!("Unknown scoring value: {v}"))
    }

    /// `POST /orders-scoring` (L2).
    pub async fn are_orders_scoring(
        &self,
        order_ids: &[&str],
    ) -> ClientResult<HashMap<String, bool>> {
        self.need_l2()?;
        let body = serde_json::to_vec(order_ids)?;
        self.typed(
            Req::post("/orders-scoring", body)
                .idempotent(true)
                .auth(Level::L2),
        )
        .await
    }
}

fn static_key(k: &str) -> &'static str {
    match k {
        "id" => "id",
        "asset_id" => "asset_id",
        "market" => "market",
        "before" => "before",
        "after" => "after",
        "maker_address" => "maker_address",
        _ => "unknown",
    }
}

async fn collect_from<T: Send + 'static>(
    c: &Client,
    spec: &PageSpec<T>,
    start: Option<&str>,
) -> ClientResult<Vec<T>> {
    let mut out = Vec::new();
    let mut cursor = start.unwrap_or(crate::http::START_CURSOR).to_owned();
    loop {
        let page = c.page(spec, Some(&cursor)).await.map_err(err)?;
        // The 0.1.1 signature returns a bare `Vec`: a row it cannot show fails the call,
        // never vanishes from it.
        if let Some(bad) = page.skipped.first() {
            return Err(anyhow::anyhow!(
                "{}: row {} of the page at cursor {cursor} did not decode: {} (row: {})",
                spec.path,
                bad.index,
                bad.reason,
                bad.raw
            ));
        }
        let last = page.is_last() || page.next_cursor == cursor;
        out.extend(page.data);
        if last {
            return Ok(out);
        }
        cursor = page.next_cursor;
    }
}

fn token_body(token_ids: &[String]) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct T<'a> {
        token_id: &'a str,
    }
    // Strings always serialize.
    serde_json::to_vec(
        &token_ids
            .iter()
            .map(|t| T { token_id: t })
            .collect::<Vec<_>>(),
    )
    .unwrap_or_default()
}

pub(crate) fn body_value(body: &[u8]) -> Value {
    if body.trim_ascii().is_empty() {
        return Value::Null;
    }
    crate::json::from_body(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()))
}
