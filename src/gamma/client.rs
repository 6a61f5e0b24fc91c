//! The Gamma [`Client`]: market discovery on the crate's one HTTP transport (tuned `reqwest`
//! client, retries, no auth), with keyset paging.

use futures_core::Stream;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::event::{GammaEvent, SearchResults, Series, SeriesSummary, Sport, Tag, Team};
use super::filter::{EventFilter, MAX_CONDITION_IDS, MarketFilter};
use super::market::GammaMarket;
use crate::http::{
    self, ClientCounters, CursorPage, Error, Req, SkippedRow, Walk, decode_each, path_with,
};

/// The production Gamma host.
pub const DEFAULT_HOST: &str = "https://gamma-api.polymarket.com";

#[derive(Deserialize)]
struct RawPage<'a> {
    #[serde(borrow, default)]
    markets: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    events: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    data: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    next_cursor: Option<String>,
}

/// Decodes a keyset page (`{"markets"|"events": […], "next_cursor": …}`) or a bare array
/// (the legacy lists), one row at a time so that a bad row is reported, not fatal.
///
/// ```
/// use polyclob::gamma::{GammaMarket, decode_keyset_page};
///
/// let body = br#"{"markets":[{"id":"1"},{"id":"2","outcomes":"[broken"}],"next_cursor":"abc"}"#;
/// let page = decode_keyset_page::<GammaMarket>(body)?;
/// assert_eq!(page.data.len(), 1);
/// assert_eq!(page.skipped[0].index, 1);
/// assert_eq!(page.next_cursor.as_deref(), Some("abc"));
/// # Ok::<(), polyclob::http::Error>(())
/// ```
///
/// # Errors
/// When `body` is neither a page object nor an array.
pub fn decode_keyset_page<T: DeserializeOwned>(body: &[u8]) -> Result<CursorPage<T>, Error> {
    let (list, rows, next_cursor) = match crate::json::from_body::<RawPage<'_>>(body) {
        Ok(p) => {
            // One list per page; a page naming two would lose one.
            let lists = [
                ("markets", p.markets),
                ("events", p.events),
                ("data", p.data),
            ];
            let mut named = lists.into_iter().filter_map(|(k, v)| v.map(|v| (k, v)));
            let (list, rows) = named.next().unwrap_or(("", Vec::new()));
            if let Some((other, _)) = named.next() {
                return Err(Error::decode(format!(
                    "a Gamma page with two lists, `{list}` and `{other}`"
                )));
            }
            (list, rows, p.next_cursor)
        }
        Err(_) => {
            let rows: Vec<&RawValue> = crate::json::from_body(body)
                .map_err(|e| Error::decode(format!("not a Gamma page: {e}")))?;
            ("", rows, None)
        }
    };
    let (data, skipped) = decode_each(list, rows);
    let next_cursor = next_cursor.filter(|c| !c.is_empty());
    Ok(CursorPage {
        data,
        has_more: next_cursor.is_some(),
        next_cursor,
        skipped,
    })
}

crate::http::host_builder::host_client_builder!("Gamma", "https://gamma-api.polymarket.com", Gamma);

/// The Gamma API client (no auth): events, markets, tags, series, sports, public search.
/// Cheap to clone.
///
/// ```no_run
/// # async fn f() -> Result<(), polyclob::http::Error> {
/// use polyclob::gamma::{Client, MarketFilter};
///
/// let gamma = Client::builder().build()?;
/// let (markets, skipped) = gamma.all_markets(MarketFilter::new().closed(false).limit(100)).await?;
/// println!("{} open markets ({} rows skipped)", markets.len(), skipped.len());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Client {
    http: http::Client,
}

impl Client {
    /// A builder with every default (production host).
    ///
    /// ```
    /// let gamma = polyclob::gamma::Client::builder().host("http://127.0.0.1:1/gamma/").build()?;
    /// assert_eq!(gamma.host(), "http://127.0.0.1:1/gamma");
    /// # Ok::<(), polyclob::http::Error>(())
    /// ```
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// The base URL requests go to.
    #[must_use]
    pub fn host(&self) -> &str {
        self.http.host()
    }

    /// What this client (and its clones) has done since it was built: requests, retries,
    /// errors by kind, rows that did not decode ([`ClientCounters::skipped_rows`]).
    #[must_use]
    pub fn counters(&self) -> ClientCounters {
        self.http.counters()
    }

    pub(super) async fn get<T: DeserializeOwned>(&self, req: &Req<'_>) -> Result<T, Error> {
        self.http.json(req).await
    }

    /// One page of `GET /markets/keyset` after `cursor` (`None` = the first page). Only the
    /// first [`MAX_CONDITION_IDS`](super::MAX_CONDITION_IDS) condition ids of the filter are
    /// sent; [`all_markets`](Self::all_markets) handles any number.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a page.
    pub async fn markets_page(
        &self,
        filter: &MarketFilter,
        cursor: Option<&str>,
    ) -> Result<CursorPage<GammaMarket>, Error> {
        let ids = &filter.condition_ids[..filter.condition_ids.len().min(MAX_CONDITION_IDS)];
        self.market_chunk(filter, ids, cursor).await
    }

    async fn market_chunk(
        &self,
        filter: &MarketFilter,
        ids: &[String],
        cursor: Option<&str>,
    ) -> Result<CursorPage<GammaMarket>, Error> {
        const PATH: &str = "/markets/keyset";
        let mut req = Req::get(PATH);
        for (k, v) in &filter.pairs {
            req = req.query(k, v);
        }
        for id in ids {
            req = req.query("condition_ids", id);
        }
        if let Some(l) = filter.limit_opt() {
            req = req.query("limit", &l.to_string());
        }
        req = req.query_opt("after_cursor", cursor);
        self.http.get_rows(&req, decode_keyset_page).await
    }

    /// Every page of `GET /markets/keyset`, following `next_cursor` to the end. Condition
    /// ids beyond [`MAX_CONDITION_IDS`](super::MAX_CONDITION_IDS) are walked chunk after
    /// chunk.
    pub fn markets(
        &self,
        filter: MarketFilter,
    ) -> impl Stream<Item = Result<CursorPage<GammaMarket>, Error>> + Send + 'static {
        let client = self.clone();
        let chunks: Vec<Vec<String>> = if filter.condition_ids.is_empty() {
            vec![Vec::new()]
        } else {
            filter
                .condition_ids
                .chunks(MAX_CONDITION_IDS)
                .map(<[String]>::to_vec)
                .collect()
        };
        // State: (chunk index, cursor within the chunk); `None` when done.
        futures_util::stream::try_unfold(Some((0usize, None::<String>)), move |state| {
            let client = client.clone();
            let filter = filter.clone();
            let chunks = chunks.clone();
            async move {
                let Some((chunk, cursor)) = state else {
                    return Ok(None);
                };
                let ids = chunks.get(chunk).map_or(&[][..], Vec::as_slice);
                let page = client.market_chunk(&filter, ids, cursor.as_deref()).await?;
                let next = next_state(chunk, chunks.len(), cursor.as_deref(), &page.next_cursor);
                Ok(Some((page, next)))
            }
        })
    }

    /// Every market of every page, with the rows that did not decode (their indexes count
    /// every row of the walk from the first page on).
    ///
    /// # Errors
    /// The first request that fails.
    pub async fn all_markets(
        &self,
        filter: MarketFilter,
    ) -> Result<(Vec<GammaMarket>, Vec<SkippedRow>), Error> {
        collect(self.markets(filter)).await
    }

    /// One page of `GET /events/keyset` after `cursor` (`None` = the first page).
    ///
    /// # Errors
    /// Transport, status, or a body that is not a page.
    pub async fn events_page(
        &self,
        filter: &EventFilter,
        cursor: Option<&str>,
    ) -> Result<CursorPage<GammaEvent>, Error> {
        const PATH: &str = "/events/keyset";
        let mut req = Req::get(PATH);
        for (k, v) in &filter.pairs {
            req = req.query(k, v);
        }
        if let Some(l) = filter.limit_opt() {
            req = req.query("limit", &l.to_string());
        }
        req = req.query_opt("after_cursor", cursor);
        self.http.get_rows(&req, decode_keyset_page).await
    }

    /// Every page of `GET /events/keyset`, following `next_cursor` to the end.
    pub fn events(
        &self,
        filter: EventFilter,
    ) -> impl Stream<Item = Result<CursorPage<GammaEvent>, Error>> + Send + 'static {
        let client = self.clone();
        futures_util::stream::try_unfold(Some((0usize, None::<String>)), move |state| {
            let client = client.clone();
            let filter = filter.clone();
            async move {
                let Some((_, cursor)) = state else {
                    return Ok(None);
                };
                let page = client.events_page(&filter, cursor.as_deref()).await?;
                let next = next_state(0, 1, cursor.as_deref(), &page.next_cursor);
                Ok(Some((page, next)))
            }
        })
    }

    /// Every event of every page, with the rows that did not decode (indexed as in
    /// [`all_markets`](Self::all_markets)).
    ///
    /// # Errors
    /// The first request that fails.
    pub async fn all_events(
        &self,
        filter: EventFilter,
    ) -> Result<(Vec<GammaEvent>, Vec<SkippedRow>), Error> {
        collect(self.events(filter)).await
    }

    /// `GET /markets/{id}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown id) or decode.
    pub async fn market(&self, id: &str) -> Result<GammaMarket, Error> {
        self.get(&Req::get(&path_with("/markets/", id))).await
    }

    /// `GET /markets/slug/{slug}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown slug) or decode.
    pub async fn market_by_slug(&self, slug: &str) -> Result<GammaMarket, Error> {
        self.get(&Req::get(&path_with("/markets/slug/", slug)))
            .await
    }

    /// `GET /events/{id}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown id) or decode.
    pub async fn event(&self, id: &str) -> Result<GammaEvent, Error> {
        self.get(&Req::get(&path_with("/events/", id))).await
    }

    /// `GET /events/slug/{slug}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown slug) or decode.
    pub async fn event_by_slug(&self, slug: &str) -> Result<GammaEvent, Error> {
        self.get(&Req::get(&path_with("/events/slug/", slug))).await
    }

    /// `GET /tags` (up to `limit` tags), leniently.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a list.
    pub async fn tags(&self, limit: u32) -> Result<(Vec<Tag>, Vec<SkippedRow>), Error> {
        self.list(Req::get("/tags").query("limit", &limit.to_string()))
            .await
    }

    /// `GET /series` (up to `limit` series from `offset`), leniently.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a list.
    pub async fn series(
        &self,
        limit: u32,
        offset: u32,
    ) -> Result<(Vec<Series>, Vec<SkippedRow>), Error> {
        self.list(
            Req::get("/series")
                .query("limit", &limit.to_string())
                .query("offset", &offset.to_string()),
        )
        .await
    }

    /// `GET /sports`: sports metadata (tags, series, resolution sources), leniently.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a list.
    pub async fn sports(&self) -> Result<(Vec<Sport>, Vec<SkippedRow>), Error> {
        self.list(Req::get("/sports")).await
    }

    /// `GET /public-search?q=…`: events (with their markets), tags and profiles matching
    /// `query`, `limit_per_type` of each (0 = Gamma's default).
    ///
    /// # Errors
    /// Transport, status or a body that is not a search answer.
    pub async fn search(&self, query: &str, limit_per_type: u32) -> Result<SearchResults, Error> {
        let mut req = Req::get("/public-search").query("q", query);
        if limit_per_type > 0 {
            req = req.query("limit_per_type", &limit_per_type.to_string());
        }
        self.http
            .get_rows(&req, |b| http::decode(b, req.path))
            .await
    }

    /// A list endpoint (`/tags`, `/series`, `/sports`): the body is the list.
    pub(super) async fn list<T: DeserializeOwned>(
        &self,
        req: Req<'_>,
    ) -> Result<(Vec<T>, Vec<SkippedRow>), Error> {
        let page = self.http.get_rows(&req, decode_keyset_page).await?;
        Ok((page.data, page.skipped))
    }

    /// A list endpoint whose path carries an id: its rows are counted and traced under the
    /// route's `template` (`/events/{id}/tags`).
    pub(super) async fn list_at<T: DeserializeOwned>(
        &self,
        req: Req<'_>,
        template: &str,
    ) -> Result<(Vec<T>, Vec<SkippedRow>), Error> {
        let body = self.http.send(&req).await?;
        let page = self.http.rows(template, decode_keyset_page(&body))?;
        Ok((page.data, page.skipped))
    }

    /// `GET /series/{id}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown id) or decode.
    pub async fn series_by_id(&self, id: &str) -> Result<Series, Error> {
        self.get(&Req::get(&path_with("/series/", id))).await
    }

    /// `GET /series-summary/{id}`: the series' event dates and weeks.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown id) or decode.
    pub async fn series_summary(&self, id: &str) -> Result<SeriesSummary, Error> {
        self.get(&Req::get(&path_with("/series-summary/", id)))
            .await
    }

    /// `GET /series-summary/slug/{slug}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown slug) or decode.
    pub async fn series_summary_by_slug(&self, slug: &str) -> Result<SeriesSummary, Error> {
        self.get(&Req::get(&path_with("/series-summary/slug/", slug)))
            .await
    }

    /// `GET /tags/{id}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown id) or decode.
    pub async fn tag(&self, id: &str) -> Result<Tag, Error> {
        self.get(&Req::get(&path_with("/tags/", id))).await
    }

    /// `GET /tags/slug/{slug}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown slug) or decode.
    pub async fn tag_by_slug(&self, slug: &str) -> Result<Tag, Error> {
        self.get(&Req::get(&path_with("/tags/slug/", slug))).await
    }

    /// `GET /tags/{id}/related-tags/tags`: the tags related to tag `id`, leniently.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a list.
    pub async fn related_tags(&self, id: &str) -> Result<(Vec<Tag>, Vec<SkippedRow>), Error> {
        let path = format!("{}/related-tags/tags", path_with("/tags/", id));
        self.list_at(Req::get(&path), "/tags/{id}/related-tags/tags")
            .await
    }

    /// `GET /events/{id}/tags`, leniently.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a list.
    pub async fn event_tags(&self, id: &str) -> Result<(Vec<Tag>, Vec<SkippedRow>), Error> {
        let path = format!("{}/tags", path_with("/events/", id));
        self.list_at(Req::get(&path), "/events/{id}/tags").await
    }

    /// `GET /markets/{id}/tags`, leniently.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a list.
    pub async fn market_tags(&self, id: &str) -> Result<(Vec<Tag>, Vec<SkippedRow>), Error> {
        let path = format!("{}/tags", path_with("/markets/", id));
        self.list_at(Req::get(&path), "/markets/{id}/tags").await
    }

    /// `GET /teams`: up to `limit` teams from `offset`, of the given `leagues` (all when
    /// empty), leniently.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a list.
    pub async fn teams(
        &self,
        limit: u32,
        offset: u32,
        leagues: &[&str],
    ) -> Result<(Vec<Team>, Vec<SkippedRow>), Error> {
        let mut req = Req::get("/teams")
            .query("limit", &limit.to_string())
            .query("offset", &offset.to_string());
        for l in leagues {
            req = req.query("league", l);
        }
        self.list(req).await
    }

    /// `GET /teams/{id}`.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown id) or decode.
    pub async fn team(&self, id: &str) -> Result<Team, Error> {
        self.get(&Req::get(&path_with("/teams/", id))).await
    }

    /// `GET /sports/market-types`: the sports market types Gamma knows (`moneyline`,
    /// `totals`, …).
    ///
    /// # Errors
    /// Transport, status or decode: an answer without its `marketTypes` list, or with an
    /// element that is not text, is an error (never an empty or shorter list).
    pub async fn sports_market_types(&self) -> Result<Vec<String>, Error> {
        #[derive(Deserialize)]
        struct Types {
            // Required: an answer without it is not "no types".
            #[serde(rename = "marketTypes")]
            market_types: Vec<String>,
        }
        let t: Types = self.get(&Req::get("/sports/market-types")).await?;
        Ok(t.market_types)
    }
}

/// Where a walk goes after a page: the next cursor of this chunk, else the next chunk, else
/// the end. A server that hands back the cursor it was sent (agents #227) would loop forever,
/// so a repeated cursor ends the chunk.
fn next_state(
    chunk: usize,
    chunks: usize,
    sent: Option<&str>,
    next: &Option<String>,
) -> Option<(usize, Option<String>)> {
    match next {
        Some(c) if sent != Some(c.as_str()) => Some((chunk, Some(c.clone()))),
        _ if chunk + 1 < chunks => Some((chunk + 1, None)),
        _ => None,
    }
}

async fn collect<T>(
    s: impl Stream<Item = Result<CursorPage<T>, Error>>,
) -> Result<(Vec<T>, Vec<SkippedRow>), Error> {
    use futures_util::TryStreamExt as _;
    let mut s = std::pin::pin!(s);
    let mut walk = Walk::new();
    while let Some(page) = s.try_next().await? {
        walk.page(page.data, page.skipped);
    }
    Ok(walk.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_states() {
        let c = |s: &str| Some(s.to_owned());
        assert_eq!(next_state(0, 1, None, &c("a")), Some((0, c("a"))));
        assert_eq!(next_state(0, 1, Some("a"), &c("a")), None);
        assert_eq!(next_state(0, 2, Some("a"), &None), Some((1, None)));
        assert_eq!(next_state(1, 2, None, &None), None);
    }

    #[test]
    fn pages_and_bare_lists() {
        let p = decode_keyset_page::<Tag>(br#"[{"id":"1"},{"id":{"x":1}}]"#).unwrap();
        assert_eq!((p.data.len(), p.skipped.len(), p.next_cursor), (1, 1, None));
        let p = decode_keyset_page::<GammaEvent>(br#"{"events":[{"id":"9"}],"next_cursor":""}"#)
            .unwrap();
        assert_eq!(p.data[0].id, "9");
        assert_eq!(p.next_cursor, None, "an empty cursor is the end");
        assert!(decode_keyset_page::<GammaEvent>(b"7").is_err());
        assert!(decode_keyset_page::<GammaEvent>(b"{\"events\":").is_err());
    }
}
