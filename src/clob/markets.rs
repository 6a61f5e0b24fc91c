//! Public (L0) endpoints: health, time, version, markets, books, prices, tick sizes.

use std::collections::HashMap;
use std::time::Instant;

use futures_core::Stream;
use serde::Deserialize;

use super::cache::Fill;
use super::client::Client;
use super::paging::PageSpec;
use super::request::Req;
use super::types::{
    BookSummary, ClobMarket, HistoryRange, LastTradeInfo, Market, MarketByToken, PricePoint,
    SimplifiedMarket,
};
use crate::fixed::Price;
use crate::http::{
    Error, Page, SkippedRow, decode, decode_each, decode_page, decode_rows, lenient, path_with,
};
use crate::types::{ExchangeVersion, FeeSchedule, Protocol, Side, TickSize, padded_condition};

/// The four market lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MarketList {
    /// `GET /markets`: every market, full objects.
    All,
    /// `GET /sampling-markets`: markets in the rewards program, full objects.
    Sampling,
    /// `GET /simplified-markets`.
    Simplified,
    /// `GET /sampling-simplified-markets`.
    SamplingSimplified,
}

impl MarketList {
    /// The path.
    #[must_use]
    pub const fn path(self) -> &'static str {
        match self {
            Self::All => "/markets",
            Self::Sampling => "/sampling-markets",
            Self::Simplified => "/simplified-markets",
            Self::SamplingSimplified => "/sampling-simplified-markets",
        }
    }
}

#[derive(serde::Serialize)]
struct TokenParam<'a> {
    token_id: &'a str,
}

#[derive(serde::Serialize)]
struct TokenSideParam<'a> {
    token_id: &'a str,
    side: &'static str,
}

fn to_body<T: serde::Serialize + ?Sized>(v: &T) -> Vec<u8> {
    // Serializing plain structs of strings into a Vec cannot fail.
    serde_json::to_vec(v).unwrap_or_default()
}

fn token_body(token_ids: &[&str]) -> Vec<u8> {
    to_body(
        &token_ids
            .iter()
            .map(|t| TokenParam { token_id: t })
            .collect::<Vec<_>>(),
    )
}

#[derive(Deserialize)]
struct PriceMap(#[serde(deserialize_with = "lenient::price")] Price);

fn decode_markets_owned(b: &[u8]) -> Result<Page<Market<'static>>, Error> {
    #[cfg(feature = "simd-json")]
    {
        let mut scratch = Vec::new();
        crate::http::decode_page_simd::<Market<'_>>(b, &mut scratch)
            .map(|p| p.map(Market::into_owned))
    }
    #[cfg(not(feature = "simd-json"))]
    decode_page::<Market<'_>>(b).map(|p| p.map(Market::into_owned))
}

/// `{"history": [{t, p}, …]}`, one point at a time.
fn decode_history(body: &[u8]) -> Result<(Vec<PricePoint>, Vec<SkippedRow>), Error> {
    #[derive(Deserialize)]
    struct H<'a> {
        #[serde(borrow, default)]
        history: Option<Vec<&'a serde_json::value::RawValue>>,
    }
    let h: H<'_> = decode(body, "/prices-history")?;
    Ok(decode_each("history", h.history.unwrap_or_default()))
}

fn decode_simplified_owned(b: &[u8]) -> Result<Page<SimplifiedMarket<'static>>, Error> {
    super::decode_simplified_page(b).map(|p| p.map(SimplifiedMarket::into_owned))
}

impl Client {
    /// `GET /`: whether the server answers 2xx.
    pub async fn ok(&self) -> bool {
        self.send(&Req::get("/")).await.is_ok()
    }

    /// `GET /time`: the server's unix time in seconds.
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not an integer.
    pub async fn server_time(&self) -> Result<u64, Error> {
        let body = self.send(&Req::get("/time")).await?;
        let text = core::str::from_utf8(&body)
            .unwrap_or_default()
            .trim()
            .trim_matches('"');
        text.parse().map_err(|_| {
            Error::decode(format!("/time: not an integer: {:?}", truncate(text))).with_path("/time")
        })
    }

    /// `GET /version`: which exchange generation token-ID orders are signed for, cached for
    /// the client's cache TTL.
    ///
    /// # Errors
    ///
    /// Transport, status or an unknown version number.
    pub async fn exchange_version(&self) -> Result<ExchangeVersion, Error> {
        if let Some(v) = self.inner.caches.version.get(&(), Instant::now()) {
            return Ok(v);
        }
        let _flight = self.inner.caches.flights.join(Fill::Version, "").await;
        if let Some(v) = self.inner.caches.version.get(&(), Instant::now()) {
            return Ok(v);
        }
        self.refresh_exchange_version().await
    }

    /// The cached exchange version, if fresh. Never does I/O.
    #[must_use]
    pub fn cached_exchange_version(&self) -> Option<ExchangeVersion> {
        self.inner.caches.version.get(&(), Instant::now())
    }

    /// Re-reads `GET /version`, bypassing the cache (used after `order_version_mismatch`).
    ///
    /// # Errors
    ///
    /// Transport, status or an unknown version number.
    pub async fn refresh_exchange_version(&self) -> Result<ExchangeVersion, Error> {
        #[derive(Deserialize)]
        struct V {
            #[serde(deserialize_with = "lenient::u64_lenient")]
            version: u64,
        }
        let v: V = self.json(&Req::get("/version")).await?;
        let version = ExchangeVersion::from_clob_version(v.version).ok_or_else(|| {
            Error::decode(format!("/version: unknown version {}", v.version)).with_path("/version")
        })?;
        self.inner
            .caches
            .version
            .insert((), version, Instant::now());
        Ok(version)
    }

    /// One page of a market list (`cursor` `None` = the first page), rows detached from the
    /// response bytes. Rows that do not decode are listed in [`Page::skipped`].
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not a page.
    pub async fn markets(
        &self,
        list: MarketList,
        cursor: Option<&str>,
    ) -> Result<Page<Market<'static>>, Error> {
        self.page(&market_spec(list), cursor).await
    }

    /// Every page of a full-object market list as a stream.
    pub fn markets_stream(
        &self,
        list: MarketList,
    ) -> impl Stream<Item = Result<Page<Market<'static>>, Error>> + Send + 'static {
        self.page_stream(market_spec(list))
    }

    /// One page of a simplified market list.
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not a page.
    pub async fn simplified_markets(
        &self,
        list: MarketList,
        cursor: Option<&str>,
    ) -> Result<Page<SimplifiedMarket<'static>>, Error> {
        self.page(&simplified_spec(list), cursor).await
    }

    /// Every page of a simplified market list as a stream.
    pub fn simplified_markets_stream(
        &self,
        list: MarketList,
    ) -> impl Stream<Item = Result<Page<SimplifiedMarket<'static>>, Error>> + Send + 'static {
        self.page_stream(simplified_spec(list))
    }

    /// One page of a full-object market list, decoded straight from the response bytes: the
    /// body is stored in `body` and every text field borrows from it (an allocation only for
    /// text with escapes). The fastest way to read a page; [`Client::markets`] detaches the
    /// rows instead (one allocation per text field).
    ///
    /// ```no_run
    /// # async fn f(client: polyclob::clob::Client) -> Result<(), polyclob::http::Error> {
    /// use polyclob::clob::MarketList;
    /// let mut body = polyclob::clob::Bytes::new();
    /// let page = client.markets_borrowed(MarketList::All, None, &mut body).await?;
    /// for m in &page.data {
    ///     println!("{} {}", m.condition_id, m.question);
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not a page.
    pub async fn markets_borrowed<'b>(
        &self,
        list: MarketList,
        cursor: Option<&str>,
        body: &'b mut bytes::Bytes,
    ) -> Result<Page<Market<'b>>, Error> {
        *body = self.markets_raw(list, cursor).await?;
        let body: &'b bytes::Bytes = body;
        self.inner.http.rows(list.path(), decode_page(body))
    }

    /// One page of a simplified market list, decoded straight from the response bytes (see
    /// [`Client::markets_borrowed`]).
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not a page.
    pub async fn simplified_markets_borrowed<'b>(
        &self,
        list: MarketList,
        cursor: Option<&str>,
        body: &'b mut bytes::Bytes,
    ) -> Result<Page<SimplifiedMarket<'b>>, Error> {
        *body = self.markets_raw(list, cursor).await?;
        let body: &'b bytes::Bytes = body;
        self.inner
            .http
            .rows(list.path(), super::decode_simplified_page(body))
    }

    /// The raw bytes of one market-list page, for zero-copy decoding with
    /// [`decode_page`](crate::http::decode_page)`::<Market<'_>>`.
    ///
    /// # Errors
    ///
    /// Transport or status.
    pub async fn markets_raw(
        &self,
        list: MarketList,
        cursor: Option<&str>,
    ) -> Result<bytes::Bytes, Error> {
        self.send(
            &Req::get(list.path())
                .query("next_cursor", cursor.unwrap_or(crate::http::START_CURSOR)),
        )
        .await
    }

    /// `GET /markets/{condition_id}`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn market(&self, condition_id: &str) -> Result<Market<'static>, Error> {
        let path = path_with("/markets/", &padded_condition(condition_id));
        let body = self.send(&Req::get(&path)).await?;
        decode::<Market<'_>>(&body, &path).map(Market::into_owned)
    }

    /// `GET /clob-markets/{condition_id}`; also fills the tick-size and neg-risk caches of
    /// its tokens and, for a Protocol V2 market (`v` `"v2"`), records its tokens as position
    /// ids, so [`market_context_with`](Self::market_context_with) and every order path sign
    /// them for ExchangeV3. A 62-hex (`bytes31`) id is sent right-padded to 64.
    ///
    /// # Errors
    ///
    /// Transport, status or decode; an unknown `v` is a decode error.
    pub async fn clob_market(&self, condition_id: &str) -> Result<ClobMarket, Error> {
        let path = path_with("/clob-markets/", &padded_condition(condition_id));
        let m: ClobMarket = self.json(&Req::get(&path)).await?;
        let protocol = m
            .protocol()
            .map_err(|e| Error::decode(e.to_string()).with_path("/clob-markets/{condition_id}"))?;
        let now = Instant::now();
        for t in &m.tokens {
            // A V2 market's tokens are position ids, signed for ExchangeV3 from now on.
            if protocol == Protocol::V2 {
                self.set_position_token(&t.token_id);
            }
            self.inner
                .caches
                .token_markets
                .insert(&t.token_id, &m.condition_id);
            if let Some(tick) = m.min_tick_size {
                self.inner.caches.tick.insert(t.token_id.clone(), tick, now);
            }
            self.inner
                .caches
                .neg_risk
                .insert(t.token_id.clone(), m.neg_risk, now);
        }
        Ok(m)
    }

    /// `GET /markets-by-token/{token_id}`; also records the token → market pairs used to
    /// complete open-order filters.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn market_by_token(&self, token_id: &str) -> Result<MarketByToken, Error> {
        let m: MarketByToken = self
            .json(&Req::get(&path_with("/markets-by-token/", token_id)))
            .await?;
        let tm = &self.inner.caches.token_markets;
        tm.insert(token_id, &m.condition_id);
        tm.insert(&m.primary_token_id, &m.condition_id);
        tm.insert(&m.secondary_token_id, &m.condition_id);
        Ok(m)
    }

    /// The fee schedule (`fd`: rate, exponent, taker-only) of the market that trades
    /// `token_id`: `GET /markets-by-token/{token_id}` then `GET /clob-markets/{condition_id}`.
    /// `None` when the market charges no fee. The fee of a trade is
    /// [`FeeSchedule::taker_fee`](crate::types::FeeSchedule::taker_fee).
    ///
    /// # Errors
    ///
    /// Transport, status or decode of either lookup.
    pub async fn fee_schedule(&self, token_id: &str) -> Result<Option<FeeSchedule>, Error> {
        let m = self.market_by_token(token_id).await?;
        Ok(self.clob_market(&m.condition_id).await?.fee)
    }

    /// `GET /markets/live-activity/{condition_id}`: recent trade events, as JSON.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn market_trade_events(
        &self,
        condition_id: &str,
    ) -> Result<serde_json::Value, Error> {
        self.json(&Req::get(&path_with(
            "/markets/live-activity/",
            condition_id,
        )))
        .await
    }

    /// `GET /book`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn book(&self, token_id: &str) -> Result<BookSummary, Error> {
        self.json(&Req::get("/book").query("token_id", token_id))
            .await
    }

    /// `POST /books`: the books of `token_ids`, and the books that did not decode (index,
    /// reason, raw text), never dropped.
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not an array.
    pub async fn books(
        &self,
        token_ids: &[&str],
    ) -> Result<(Vec<BookSummary>, Vec<SkippedRow>), Error> {
        let req = Req::post("/books", token_body(token_ids)).idempotent(true);
        self.rows(&req, |b| decode_rows(b)).await
    }

    /// `GET /price?side=`: the best price on `side`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn price(&self, token_id: &str, side: Side) -> Result<Price, Error> {
        #[derive(Deserialize)]
        struct P {
            #[serde(deserialize_with = "lenient::price")]
            price: Price,
        }
        let p: P = self
            .json(
                &Req::get("/price")
                    .query("token_id", token_id)
                    .query("side", side.as_str()),
            )
            .await?;
        Ok(p.price)
    }

    /// `POST /prices`: `token → side → price`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn prices(
        &self,
        params: &[(&str, Side)],
    ) -> Result<HashMap<String, HashMap<Side, Price>>, Error> {
        let body = to_body(
            &params
                .iter()
                .map(|(t, s)| TokenSideParam {
                    token_id: t,
                    side: s.as_str(),
                })
                .collect::<Vec<_>>(),
        );
        let raw: HashMap<String, HashMap<String, PriceMap>> = self
            .json(&Req::post("/prices", body).idempotent(true))
            .await?;
        // A side that is not `BUY`/`SELL` fails the answer rather than vanish from it.
        raw.into_iter()
            .map(|(token, sides)| {
                let m = sides
                    .into_iter()
                    .map(|(s, p)| {
                        Side::parse(s.as_bytes()).map(|s| (s, p.0)).ok_or_else(|| {
                            Error::decode(format!(
                                "/prices: {token}: unknown side {:?}",
                                truncate(&s)
                            ))
                            .with_path("/prices")
                        })
                    })
                    .collect::<Result<HashMap<Side, Price>, Error>>()?;
                Ok((token, m))
            })
            .collect()
    }

    /// `GET /midpoint`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn midpoint(&self, token_id: &str) -> Result<Price, Error> {
        #[derive(Deserialize)]
        struct M {
            #[serde(deserialize_with = "lenient::price")]
            mid: Price,
        }
        let m: M = self
            .json(&Req::get("/midpoint").query("token_id", token_id))
            .await?;
        Ok(m.mid)
    }

    /// `POST /midpoints`: `token → mid`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn midpoints(&self, token_ids: &[&str]) -> Result<HashMap<String, Price>, Error> {
        let raw: HashMap<String, PriceMap> = self
            .json(&Req::post("/midpoints", token_body(token_ids)).idempotent(true))
            .await?;
        Ok(raw.into_iter().map(|(k, v)| (k, v.0)).collect())
    }

    /// `GET /spread`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn spread(&self, token_id: &str) -> Result<Price, Error> {
        #[derive(Deserialize)]
        struct S {
            #[serde(deserialize_with = "lenient::price")]
            spread: Price,
        }
        let s: S = self
            .json(&Req::get("/spread").query("token_id", token_id))
            .await?;
        Ok(s.spread)
    }

    /// `POST /spreads`: `token → spread`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn spreads(&self, token_ids: &[&str]) -> Result<HashMap<String, Price>, Error> {
        let raw: HashMap<String, PriceMap> = self
            .json(&Req::post("/spreads", token_body(token_ids)).idempotent(true))
            .await?;
        Ok(raw.into_iter().map(|(k, v)| (k, v.0)).collect())
    }

    /// `GET /last-trade-price`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn last_trade_price(&self, token_id: &str) -> Result<LastTradeInfo, Error> {
        self.json(&Req::get("/last-trade-price").query("token_id", token_id))
            .await
    }

    /// `POST /last-trades-prices`, and the rows that did not decode.
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not an array.
    pub async fn last_trade_prices(
        &self,
        token_ids: &[&str],
    ) -> Result<(Vec<LastTradeInfo>, Vec<SkippedRow>), Error> {
        let req = Req::post("/last-trades-prices", token_body(token_ids)).idempotent(true);
        self.rows(&req, |b| decode_rows(b)).await
    }

    /// The token's tick size: from the cache when fresh, else `GET /tick-size` (then cached).
    ///
    /// # Errors
    ///
    /// Transport, status, decode, or a tick size this crate does not know.
    pub async fn tick_size(&self, token_id: &str) -> Result<TickSize, Error> {
        if let Some(t) = self.inner.caches.tick.get(token_id, Instant::now()) {
            return Ok(t);
        }
        let _flight = self.inner.caches.flights.join(Fill::Tick, token_id).await;
        if let Some(t) = self.inner.caches.tick.get(token_id, Instant::now()) {
            return Ok(t);
        }
        #[derive(Deserialize)]
        struct T<'a> {
            #[serde(borrow, deserialize_with = "lenient::text")]
            minimum_tick_size: std::borrow::Cow<'a, str>,
        }
        let body = self
            .send(&Req::get("/tick-size").query("token_id", token_id))
            .await?;
        let t: T<'_> = decode(&body, "/tick-size")?;
        let tick = TickSize::parse(t.minimum_tick_size.as_bytes()).ok_or_else(|| {
            Error::decode(format!(
                "unknown tick size {:?} for token {token_id}",
                t.minimum_tick_size
            ))
            .with_path("/tick-size")
        })?;
        self.inner
            .caches
            .tick
            .insert(token_id.to_owned(), tick, Instant::now());
        Ok(tick)
    }

    /// Records a tick size (e.g. from a WS `tick_size_change`), so order building sees it
    /// without a request.
    pub fn set_tick_size(&self, token_id: &str, tick: TickSize) {
        self.inner
            .caches
            .tick
            .insert(token_id.to_owned(), tick, Instant::now());
    }

    /// The cached tick size, if fresh. Never does I/O.
    #[must_use]
    pub fn cached_tick_size(&self, token_id: &str) -> Option<TickSize> {
        self.inner.caches.tick.get(token_id, Instant::now())
    }

    /// Whether the token trades on the neg-risk exchange: cache, else `GET /neg-risk`.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn neg_risk(&self, token_id: &str) -> Result<bool, Error> {
        if let Some(n) = self.inner.caches.neg_risk.get(token_id, Instant::now()) {
            return Ok(n);
        }
        let _flight = self
            .inner
            .caches
            .flights
            .join(Fill::NegRisk, token_id)
            .await;
        if let Some(n) = self.inner.caches.neg_risk.get(token_id, Instant::now()) {
            return Ok(n);
        }
        #[derive(Deserialize)]
        struct N {
            #[serde(deserialize_with = "lenient::bool_lenient")]
            neg_risk: bool,
        }
        let n: N = self
            .json(&Req::get("/neg-risk").query("token_id", token_id))
            .await?;
        self.inner
            .caches
            .neg_risk
            .insert(token_id.to_owned(), n.neg_risk, Instant::now());
        Ok(n.neg_risk)
    }

    /// Records a token's neg-risk flag.
    pub fn set_neg_risk(&self, token_id: &str, neg_risk: bool) {
        self.inner
            .caches
            .neg_risk
            .insert(token_id.to_owned(), neg_risk, Instant::now());
    }

    /// The token's `base_fee` (`GET /fee-rate`, cached): on today's exchange the fee
    /// **authorization** value of V1 orders, 1000 on every fee-charging market and 0 on
    /// fee-free ones, not the rate charged (Polymarket's py-clob-client-v2 #110). The rate and
    /// curve are [`fee_schedule`](Self::fee_schedule)'s.
    ///
    /// # Errors
    ///
    /// Transport, status or decode.
    pub async fn fee_rate_bps(&self, token_id: &str) -> Result<u32, Error> {
        if let Some(f) = self.inner.caches.fee_bps.get(token_id, Instant::now()) {
            return Ok(f);
        }
        let _flight = self
            .inner
            .caches
            .flights
            .join(Fill::FeeRate, token_id)
            .await;
        if let Some(f) = self.inner.caches.fee_bps.get(token_id, Instant::now()) {
            return Ok(f);
        }
        #[derive(Deserialize)]
        struct F {
            #[serde(deserialize_with = "lenient::u64_lenient")]
            base_fee: u64,
        }
        let f: F = self
            .json(&Req::get("/fee-rate").query("token_id", token_id))
            .await?;
        let bps = u32::try_from(f.base_fee).map_err(|_| {
            Error::decode(format!("fee rate {} out of range", f.base_fee)).with_path("/fee-rate")
        })?;
        self.inner
            .caches
            .fee_bps
            .insert(token_id.to_owned(), bps, Instant::now());
        Ok(bps)
    }

    /// Forgets everything cached about a token.
    pub fn invalidate_token(&self, token_id: &str) {
        self.inner.caches.tick.remove(token_id);
        self.inner.caches.neg_risk.remove(token_id);
        self.inner.caches.fee_bps.remove(token_id);
    }

    /// Forgets every cached value, including the exchange version.
    pub fn clear_caches(&self) {
        self.inner.caches.tick.clear();
        self.inner.caches.neg_risk.clear();
        self.inner.caches.fee_bps.clear();
        self.inner.caches.version.clear();
    }

    /// `GET /prices-history` for a token (`fidelity` is the resolution in minutes): the
    /// points, and the points that did not decode.
    ///
    /// # Errors
    ///
    /// Transport, status, or a body without a `history` list.
    pub async fn prices_history(
        &self,
        token_id: &str,
        range: HistoryRange,
        fidelity: Option<u32>,
    ) -> Result<(Vec<PricePoint>, Vec<SkippedRow>), Error> {
        let mut req = Req::get("/prices-history").query("market", token_id);
        match range {
            HistoryRange::Interval(i) => req = req.query("interval", i.as_str()),
            HistoryRange::Between { start, end } => {
                req = req
                    .query("startTs", &start.to_string())
                    .query("endTs", &end.to_string());
            }
        }
        if let Some(f) = fidelity {
            req = req.query("fidelity", &f.to_string());
        }
        self.rows(&req, decode_history).await
    }
}

fn market_spec(list: MarketList) -> PageSpec<Market<'static>> {
    PageSpec {
        path: list.path(),
        query: Vec::new(),
        auth: super::auth::Level::None,
        decode: decode_markets_owned,
    }
}

fn simplified_spec(list: MarketList) -> PageSpec<SimplifiedMarket<'static>> {
    PageSpec {
        path: list.path(),
        query: Vec::new(),
        auth: super::auth::Level::None,
        decode: decode_simplified_owned,
    }
}

fn truncate(s: &str) -> &str {
    let mut end = s.len().min(64);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
