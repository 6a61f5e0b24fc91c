//! The Data API v2 [`Client`] on the crate's one HTTP transport: the `{data, pagination}`
//! envelope and cursor paging (send `pagination.next_cursor` back as `cursor` until it is
//! `null`), per docs.polymarket.com "Data API v2" and its v1→v2 migration page.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use futures_core::Stream;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::types::{Activity, DataTrade, HolderGroup, PortfolioValue, Position};
use crate::http::{self, ClientCounters, CursorPage, Error, Req, SkippedRow, Walk, decode_each};
use crate::types::Side;

/// The production Data API host (v2 routes live under `/v2`).
pub const DEFAULT_HOST: &str = "https://data-api.polymarket.com";

/// Most distinct condition ids one v2 request may carry.
pub const MAX_CONDITIONS: usize = 20;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Pagination {
    next_cursor: Option<String>,
    #[serde(deserialize_with = "crate::http::lenient::bool_lenient")]
    has_more: bool,
}

/// Decodes a v2 page (`{"data": [...] | {...} | null, "pagination": {...}}`) or a bare v1
/// array, one row at a time: a bad row is reported in `skipped`, never fatal.
///
/// ```
/// use polyclob::data::{DataTrade, decode_cursor_page};
///
/// let body = br#"{"data":[{"side":"BUY","size":1.5,"price":0.7},{"size":"x"}],
///                 "pagination":{"limit":2,"offset":0,"has_more":true,"next_cursor":"eyJ"}}"#;
/// let page = decode_cursor_page::<DataTrade>(body)?;
/// assert_eq!(page.data.len(), 1);
/// assert_eq!(page.skipped[0].index, 1);
/// assert_eq!(page.next_cursor.as_deref(), Some("eyJ"));
/// # Ok::<(), polyclob::http::Error>(())
/// ```
///
/// # Errors
/// When `body` is neither an envelope nor an array.
pub fn decode_cursor_page<T: DeserializeOwned>(body: &[u8]) -> Result<CursorPage<T>, Error> {
    let not_data = |e: serde_json::Error| Error::decode(format!("not a Data API response: {e}"));
    // The shape is decided by the first byte, never by trying one reading and falling back
    // to another: a struct also reads from a JSON array (field by position), which once
    // took `[row0, row1]` for `{data: row0, pagination: row1}` and lost a row.
    let (list, raw, pagination): (&'static str, Option<&RawValue>, Pagination) =
        match body.iter().find(|b| !b.is_ascii_whitespace()) {
            // A bare list (v1): every element is a row.
            Some(b'[') => (
                "",
                Some(crate::json::from_body::<&RawValue>(body).map_err(not_data)?),
                Pagination::default(),
            ),
            Some(b'{') => {
                let members: BTreeMap<String, &RawValue> =
                    crate::json::from_body(body).map_err(not_data)?;
                if members.contains_key("data") || members.contains_key("pagination") {
                    let pagination = match members.get("pagination").map(|p| p.get()) {
                        None | Some("null") => Pagination::default(),
                        Some(p) => serde_json::from_str(p).map_err(|e| {
                            Error::decode(format!("`pagination` is not an object: {e}"))
                        })?,
                    };
                    ("data", members.get("data").copied(), pagination)
                } else {
                    // Every v2 answer is wrapped in `data`: an object without it is not read as
                    // one row (the row types take missing fields, so a renamed envelope would
                    // become one blank row, and the real rows would be lost unsaid).
                    let keys: Vec<&str> = members.keys().map(String::as_str).take(8).collect();
                    return Err(Error::decode(format!(
                        "not a Data API response: an object without `data` (keys: {})",
                        keys.join(", ")
                    )));
                }
            }
            _ => {
                return Err(Error::decode(
                    "not a Data API response: neither an object nor a list",
                ));
            }
        };
    let rows: Vec<&RawValue> = match raw.map(RawValue::get) {
        None | Some("null") => Vec::new(),
        Some(text) => match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(rows) => rows,
            // A single object (e.g. `/v2/value`) is a one-row list.
            Err(_) if text.trim_start().starts_with('{') => raw.into_iter().collect(),
            Err(e) => return Err(Error::decode(format!("`data` is not a list: {e}"))),
        },
    };
    let (data, skipped) = decode_each(list, rows);
    let next_cursor = pagination.next_cursor.filter(|c| !c.is_empty());
    Ok(CursorPage {
        data,
        has_more: pagination.has_more,
        next_cursor,
        skipped,
    })
}

/// A v2 list request: the route, its filters, and the row type it yields.
///
/// ```
/// use polyclob::data::{Query, Position};
///
/// let q: Query<Position> = Query::positions("0x983e").status("OPEN").condition("0xd9").limit(50);
/// assert_eq!(q.path(), "/v2/positions");
/// ```
#[derive(Debug)]
#[must_use]
pub struct Query<T> {
    path: &'static str,
    pairs: Vec<(&'static str, String)>,
    conditions: Vec<String>,
    /// A setter's argument outside the documented set: refused by [`request`](Self::request).
    refused: Option<String>,
    _row: PhantomData<fn() -> T>,
}

impl<T> Clone for Query<T> {
    fn clone(&self) -> Self {
        Self {
            path: self.path,
            pairs: self.pairs.clone(),
            conditions: self.conditions.clone(),
            refused: self.refused.clone(),
            _row: PhantomData,
        }
    }
}

impl<T> Query<T> {
    pub(super) fn new(path: &'static str) -> Self {
        Self {
            path,
            pairs: Vec::new(),
            conditions: Vec::new(),
            refused: None,
            _row: PhantomData,
        }
    }

    /// Refuses the query when it is sent, saying `why` ([`Error::is_argument`]).
    pub(super) fn refuse(mut self, why: String) -> Self {
        self.refused.get_or_insert(why);
        self
    }

    /// Forgets the pairs of `key` (a setter that replaces them).
    pub(super) fn drop_pairs(mut self, key: &str) -> Self {
        self.pairs.retain(|(k, _)| *k != key);
        self
    }

    /// `key=value` when `value` is one of the documented `allowed` values (ASCII case
    /// ignored; sent as documented); otherwise the query is refused when it is sent
    /// ([`Error::is_argument`]).
    pub(super) fn one_of(self, key: &'static str, value: &str, allowed: &[&'static str]) -> Self {
        match allowed
            .iter()
            .find(|a| a.eq_ignore_ascii_case(value.trim()))
        {
            Some(a) => self.pair(key, (*a).to_owned()),
            None => {
                let why = format!(
                    "{key} {value:?} is not one of {allowed:?} (`{}`)",
                    self.path
                );
                self.refuse(why)
            }
        }
    }

    /// The route.
    #[must_use]
    pub fn path(&self) -> &'static str {
        self.path
    }

    pub(super) fn pair(mut self, key: &'static str, value: String) -> Self {
        self.pairs.push((key, value));
        self
    }

    /// Restricts to a market (repeatable, at most [`MAX_CONDITIONS`] distinct ids; the
    /// server refuses more). Default is every market.
    pub fn condition(mut self, condition_id: impl Into<String>) -> Self {
        // The 64-hex form: the Data API refuses a 62-hex V2 id. A combo condition is sent as
        // given: the docs do not say the combo routes take it padded.
        let id = condition_id.into();
        let c = if self.path.contains("/combos") {
            id
        } else {
            crate::types::padded_condition(&id).into_owned()
        };
        if !self.conditions.contains(&c) {
            self.conditions.push(c);
        }
        self
    }

    /// First-page size (the cursor carries it afterwards). Default is the endpoint's.
    pub fn limit(self, limit: u32) -> Self {
        self.pair("limit", limit.to_string())
    }

    pub(super) fn request(&self, cursor: Option<&str>) -> Result<Req<'static>, Error> {
        if let Some(why) = &self.refused {
            return Err(Error::argument(why.clone()));
        }
        if self.conditions.len() > MAX_CONDITIONS {
            return Err(Error::argument(format!(
                "{} condition ids given; the Data API takes at most {MAX_CONDITIONS}",
                self.conditions.len()
            )));
        }
        if self.path == super::resolution::RESOLUTIONS {
            self.one_selector()?;
        }
        let mut req = Req::get(self.path);
        for (k, v) in &self.pairs {
            req = req.query(k, v);
        }
        if !self.conditions.is_empty() {
            req = req.query("condition", &self.conditions.join(","));
        }
        Ok(req.query_opt("cursor", cursor))
    }
}

impl<T> Query<T> {
    /// `/v2/resolutions` takes exactly one of `question_id` (one value), `condition` and
    /// `event_id` (up to [`MAX_CONDITIONS`] values each); the server answers 400 otherwise.
    fn one_selector(&self) -> Result<(), Error> {
        let values = |key: &str| -> Vec<&str> {
            self.pairs
                .iter()
                .filter(|(k, _)| *k == key)
                .flat_map(|(_, v)| v.split(','))
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .collect()
        };
        let (questions, events) = (values("question_id"), values("event_id"));
        let given = [
            !questions.is_empty(),
            !self.conditions.is_empty(),
            !events.is_empty(),
        ];
        if given.iter().filter(|&&g| g).count() != 1 {
            return Err(Error::argument(
                "`/v2/resolutions` takes exactly one of question_id, condition and event_id",
            ));
        }
        if questions.len() > 1 {
            return Err(Error::argument(format!(
                "{} question ids given; `/v2/resolutions` takes one",
                questions.len()
            )));
        }
        if events.len() > MAX_CONDITIONS {
            return Err(Error::argument(format!(
                "{} event ids given; the Data API takes at most {MAX_CONDITIONS}",
                events.len()
            )));
        }
        Ok(())
    }
}

impl Query<Position> {
    /// `GET /v2/positions` of `user` (every lifecycle stage unless [`status`](Self::status)).
    pub fn positions(user: impl Into<String>) -> Self {
        Self::new("/v2/positions").pair("user", user.into())
    }

    /// Lifecycle filter: `OPEN`, `REDEEMABLE`, `REDEEMABLE_LOST`, `MERGEABLE`, `CLOSED`.
    /// Default is every stage.
    pub fn status(self, status: impl Into<String>) -> Self {
        self.pair("status", status.into())
    }
}

impl Query<DataTrade> {
    /// `GET /v2/trades`: the global feed; narrow it with [`user`](Self::user) or
    /// [`condition`](Self::condition).
    pub fn trades() -> Self {
        Self::new("/v2/trades")
    }

    /// Trades of this wallet. Default is every wallet.
    pub fn user(self, user: impl Into<String>) -> Self {
        self.pair("user", user.into())
    }

    /// Only this side. Default is both.
    pub fn side(self, side: Side) -> Self {
        self.pair("side", side.as_str().to_owned())
    }

    /// `false` adds the maker rows of each fill. Default is the server's (`true`).
    pub fn taker_only(self, yes: bool) -> Self {
        self.pair("taker_only", yes.to_string())
    }
}

impl Query<Activity> {
    /// `GET /v2/activity` of `user`.
    pub fn activity(user: impl Into<String>) -> Self {
        Self::new("/v2/activity").pair("user", user.into())
    }

    /// Only this kind (`TRADE`, `SPLIT`, `MERGE`, `REDEEM`, …). Default is every kind.
    pub fn kind(self, kind: impl Into<String>) -> Self {
        self.pair("type", kind.into())
    }
}

impl Query<HolderGroup> {
    /// `GET /v2/holders` of a market (one group per outcome token).
    pub fn holders(condition_id: impl Into<String>) -> Self {
        Self::new("/v2/holders").condition(condition_id)
    }
}

crate::http::host_builder::host_client_builder!(
    "Data API",
    "https://data-api.polymarket.com",
    Data
);

/// The Data API v2 client (no auth). Cheap to clone.
///
/// ```no_run
/// # async fn f() -> Result<(), polyclob::http::Error> {
/// use polyclob::data::{Client, Query};
///
/// let data = Client::builder().build()?;
/// let (open, _) = data.collect(Query::positions("0x983eedfbd75803602e4a6e6ea9aab6dc6b9c6748").status("OPEN")).await?;
/// for p in open {
///     println!("{} {:?} @ {:?}", p.title, p.size, p.avg_price);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Client {
    http: http::Client,
}

impl Client {
    /// A builder with every default (production host).
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

    /// One page of `query` at `cursor` (`None` = the first page). Every call of this client
    /// that returns rows reads its pages here: a row that does not decode is in
    /// the page's `skipped`, counted and traced, never dropped.
    ///
    /// # Errors
    /// More than [`MAX_CONDITIONS`] condition ids ([`Error::is_argument`]); transport,
    /// status (the Data API's typed error: [`Error::api_code`], [`Error::trace_id`]), or a
    /// body that is not a v2 envelope.
    pub async fn page<T: DeserializeOwned>(
        &self,
        query: &Query<T>,
        cursor: Option<&str>,
    ) -> Result<CursorPage<T>, Error> {
        let req = query.request(cursor)?;
        self.http.get_rows(&req, decode_cursor_page).await
    }

    /// Every page of `query`, following `next_cursor` until it is `null`, re-sending the
    /// same filters on every page (as the docs require for the feeds).
    pub fn pages<T: DeserializeOwned + Send + 'static>(
        &self,
        query: Query<T>,
    ) -> impl Stream<Item = Result<CursorPage<T>, Error>> + Send + 'static {
        let client = self.clone();
        futures_util::stream::try_unfold(Some(None::<String>), move |state| {
            let client = client.clone();
            let query = query.clone();
            async move {
                let Some(cursor) = state else {
                    return Ok(None);
                };
                let page = client.page(&query, cursor.as_deref()).await?;
                // A repeated cursor would loop forever: treat it as the end.
                let next = match &page.next_cursor {
                    Some(c) if cursor.as_deref() != Some(c.as_str()) => Some(Some(c.clone())),
                    _ => None,
                };
                Ok(Some((page, next)))
            }
        })
    }

    /// Every row of every page of `query`, with the rows that did not decode. A skipped
    /// row's [`index`](SkippedRow::index) counts every row of the walk (decoded or not) from
    /// the first page on, so it names one row even across pages.
    ///
    /// # Errors
    /// The first request that fails.
    pub async fn collect<T: DeserializeOwned + Send + 'static>(
        &self,
        query: Query<T>,
    ) -> Result<(Vec<T>, Vec<SkippedRow>), Error> {
        use futures_util::TryStreamExt as _;
        let mut s = std::pin::pin!(self.pages(query));
        let mut walk = Walk::new();
        while let Some(p) = s.try_next().await? {
            walk.page(p.data, p.skipped);
        }
        Ok(walk.finish())
    }

    /// Every open position of `user`, with the rows that did not decode (a position that
    /// fails to decode is reported there, never left out unsaid).
    ///
    /// # Errors
    /// As [`collect`](Self::collect).
    pub async fn positions(&self, user: &str) -> Result<(Vec<Position>, Vec<SkippedRow>), Error> {
        self.collect(Query::positions(user).status("OPEN")).await
    }

    /// Every closed position of `user` (`status=CLOSED`; v1's `/closed-positions`), with the
    /// rows that did not decode.
    ///
    /// # Errors
    /// As [`collect`](Self::collect).
    pub async fn closed_positions(
        &self,
        user: &str,
    ) -> Result<(Vec<Position>, Vec<SkippedRow>), Error> {
        self.collect(Query::positions(user).status("CLOSED")).await
    }

    /// Every trade of `user`, maker rows included, with the rows that did not decode.
    ///
    /// # Errors
    /// As [`collect`](Self::collect).
    pub async fn trades(&self, user: &str) -> Result<(Vec<DataTrade>, Vec<SkippedRow>), Error> {
        self.collect(Query::trades().user(user).taker_only(false))
            .await
    }

    /// Every activity row of `user`, with the rows that did not decode.
    ///
    /// # Errors
    /// As [`collect`](Self::collect).
    pub async fn activity(&self, user: &str) -> Result<(Vec<Activity>, Vec<SkippedRow>), Error> {
        self.collect(Query::activity(user)).await
    }

    /// The top holders of a market, one group per outcome token (pages merged by token),
    /// with the groups that did not decode.
    ///
    /// # Errors
    /// As [`collect`](Self::collect).
    pub async fn holders(
        &self,
        condition_id: &str,
    ) -> Result<(Vec<HolderGroup>, Vec<SkippedRow>), Error> {
        let (groups, skipped) = self.collect(Query::holders(condition_id)).await?;
        let mut merged: Vec<HolderGroup> = Vec::new();
        for g in groups {
            match merged.iter_mut().find(|m| m.token_id == g.token_id) {
                Some(m) => m.holders.extend(g.holders),
                None => merged.push(g),
            }
        }
        Ok((merged, skipped))
    }

    /// `GET /v2/value`: the portfolio value of `user`.
    ///
    /// # Errors
    /// Transport, status or decode; an answer without a row.
    pub async fn value(&self, user: &str) -> Result<PortfolioValue, Error> {
        self.single(&Query::new("/v2/value").pair("user", user.to_owned()))
            .await
    }
}

impl Client {
    /// The one row of a `{data: T | null}` answer of `query`: `None` for `null` (the docs'
    /// "no such user"), an error when the row did not decode.
    ///
    /// # Errors
    /// As [`page`](Self::page); a row that did not decode.
    pub(super) async fn one<T: DeserializeOwned>(
        &self,
        query: &Query<T>,
    ) -> Result<Option<T>, Error> {
        let page = self.page(query, None).await?;
        if page.data.is_empty() && page.skipped.is_empty() {
            return Ok(None);
        }
        single_row(page)
            .map(Some)
            .map_err(|e| e.with_path(query.path))
    }

    /// The one row `query` must answer with.
    ///
    /// # Errors
    /// As [`page`](Self::page); an answer without a row, or a row that did not decode.
    pub(super) async fn single<T: DeserializeOwned>(&self, query: &Query<T>) -> Result<T, Error> {
        let page = self.page(query, None).await?;
        single_row(page).map_err(|e| e.with_path(query.path))
    }
}

/// The one row of a single-row answer, or why there is none (its row did not decode, or it
/// sent none).
pub(super) fn single_row<T>(page: CursorPage<T>) -> Result<T, Error> {
    // One answer is expected: a second row (good or bad) would otherwise be lost unsaid.
    let rows = page.data.len() + page.skipped.len();
    if rows > 1 {
        return Err(Error::decode(format!(
            "answered {rows} rows where one was expected"
        )));
    }
    if let Some(row) = page.data.into_iter().next() {
        return Ok(row);
    }
    Err(match page.skipped.first() {
        Some(bad) => Error::decode(format!("its row did not decode: {}", bad.reason)),
        None => Error::decode("answered without a row"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_answer_with_two_rows_is_an_error_not_its_first_row() {
        let one =
            decode_cursor_page::<PortfolioValue>(br#"{"data":{"proxy_wallet":"0x1","value":3}}"#);
        assert!(single_row(one.unwrap()).is_ok());
        for body in [
            &br#"{"data":[{"proxy_wallet":"0x1","value":3},{"proxy_wallet":"0x2","value":4}]}"#[..],
            br#"{"data":[{"proxy_wallet":"0x1","value":3},{"proxy_wallet":"0x2","value":"much"}]}"#,
        ] {
            let e = single_row(decode_cursor_page::<PortfolioValue>(body).unwrap()).unwrap_err();
            assert!(
                e.to_string().contains("2 rows where one was expected"),
                "{e}"
            );
        }
    }

    #[test]
    fn resolutions_take_exactly_one_selector() {
        use super::super::Resolution;
        let ok = |q: Query<Resolution>| q.request(None).map(|r| r.query);
        assert!(ok(Query::resolutions("0xa")).is_ok());
        assert!(ok(Query::resolution_of_question("0xq")).is_ok());
        let twenty: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        assert!(ok(Query::resolutions_of_event(twenty.join(","))).is_ok());
        let mixed = [
            Query::resolutions_of_event("1").condition("0xa"),
            Query::resolution_of_question("0xq").condition("0xa"),
            Query::resolution_of_question("0xq").pair("event_id", "1".into()),
            Query::resolution_of_question(""),
            Query::resolution_of_question("0xq").pair("question_id", "0xr".into()),
            Query::resolutions_of_event(format!("{},20", twenty.join(","))),
        ];
        for q in mixed {
            let e = q.request(None).unwrap_err();
            assert!(e.is_argument(), "{e}");
        }
        // Other routes may combine filters.
        assert!(
            Query::trades()
                .user("0x1")
                .condition("0xa")
                .request(None)
                .is_ok()
        );
    }

    #[test]
    fn envelopes_nulls_objects_and_v1_arrays() {
        let p = decode_cursor_page::<PortfolioValue>(
            br#"{"data":{"proxy_wallet":"0x1","value":12.5}}"#,
        )
        .unwrap();
        assert_eq!(p.data[0].value, crate::fixed::Size::new(12_500_000));
        assert_eq!((p.next_cursor, p.has_more), (None, false));
        let p = decode_cursor_page::<DataTrade>(
            br#"{"data":null,"pagination":{"has_more":false,"next_cursor":null}}"#,
        )
        .unwrap();
        assert!(p.data.is_empty());
        let p = decode_cursor_page::<DataTrade>(br#"[{"asset":"7","side":"SELL"}]"#).unwrap();
        assert_eq!(p.data[0].token_id, "7");
        assert!(decode_cursor_page::<DataTrade>(b"nope").is_err());
        assert!(decode_cursor_page::<DataTrade>(br#"{"data":7}"#).is_err());
        assert!(decode_cursor_page::<DataTrade>(br#"{"data":[],"pagination":[1]}"#).is_err());
    }

    /// A bare list is every row, whatever its length: `[row0, row1]` is not an envelope
    /// (`data` = row 0, `pagination` = row 1), and a row's `next_cursor` is not a cursor.
    #[test]
    fn bare_lists_keep_every_row() {
        for n in 0..5 {
            let rows: Vec<String> = (0..n)
                .map(|i| {
                    format!(
                        r#"{{"asset":"{i}","side":"BUY","next_cursor":"row{i}","has_more":true}}"#
                    )
                })
                .collect();
            let body = format!("[{}]", rows.join(","));
            let p = decode_cursor_page::<DataTrade>(body.as_bytes()).unwrap();
            let ids: Vec<String> = p.data.iter().map(|t| t.token_id.clone()).collect();
            let want: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            assert_eq!(ids, want, "{body}");
            assert_eq!((p.next_cursor, p.has_more), (None, false), "{body}");
        }
        // The same rows in the envelope also keep every row; an object without the envelope
        // (a renamed key) is an error, not one blank row.
        let p = decode_cursor_page::<DataTrade>(
            br#" {"data":[{"asset":"a"},{"asset":"b"}],"pagination":{"has_more":true,"next_cursor":"c"}}"#,
        )
        .unwrap();
        assert_eq!(p.data.len(), 2);
        assert_eq!(p.next_cursor.as_deref(), Some("c"));
        let e = decode_cursor_page::<DataTrade>(br#"{"results":[{"asset":"a"}],"cursor":"c"}"#)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("without `data` (keys: cursor, results)"),
            "{e}"
        );
    }

    #[test]
    fn too_many_conditions_is_an_argument_error() {
        let mut q = Query::trades();
        for i in 0..21 {
            q = q.condition(format!("0x{i}"));
        }
        assert!(q.request(None).unwrap_err().is_argument());
        let q = Query::trades()
            .condition("0xa")
            .condition("0xa")
            .condition("0xb");
        let r = q.request(Some("c1")).unwrap();
        assert_eq!(r.query, "condition=0xa%2C0xb&cursor=c1");
    }
}
