//! The CLOB's page walker: one page at a cursor, every page from `MA==` to `LTE=`, or every
//! row of every page, each request signed afresh. Pages are read by
//! [`http::decode_page`](crate::http::decode_page).

use futures_core::Stream;

use super::auth::Level;
use super::client::Client;
use super::request::Req;
use crate::http::{Error, Page, START_CURSOR, SkippedRow, Walk};

/// What a paged request needs: path, fixed query pairs, auth, and how to decode a page.
pub(crate) struct PageSpec<T> {
    pub(crate) path: &'static str,
    pub(crate) query: Vec<(&'static str, String)>,
    pub(crate) auth: Level,
    pub(crate) decode: fn(&[u8]) -> Result<Page<T>, Error>,
}

impl<T> Clone for PageSpec<T> {
    fn clone(&self) -> Self {
        Self {
            path: self.path,
            query: self.query.clone(),
            auth: self.auth,
            decode: self.decode,
        }
    }
}

impl Client {
    /// Fetches one page at `cursor` (`None` = first page). Headers are signed for this request.
    pub(crate) async fn page<T>(
        &self,
        spec: &PageSpec<T>,
        cursor: Option<&str>,
    ) -> Result<Page<T>, Error> {
        let mut req = Req::get(spec.path).auth(spec.auth);
        for (k, v) in &spec.query {
            req = req.query(k, v);
        }
        req = req.query("next_cursor", cursor.unwrap_or(START_CURSOR));
        self.rows(&req, spec.decode).await
    }

    /// Every page from `START_CURSOR` to `END_CURSOR`, each request signed afresh.
    pub(crate) fn page_stream<T: Send + 'static>(
        &self,
        spec: PageSpec<T>,
    ) -> impl Stream<Item = Result<Page<T>, Error>> + Send + 'static {
        let client = self.clone();
        futures_util::stream::try_unfold(Some(START_CURSOR.to_owned()), move |cursor| {
            let client = client.clone();
            let spec = spec.clone();
            async move {
                let Some(cursor) = cursor else {
                    return Ok(None);
                };
                let page = client.page(&spec, Some(&cursor)).await?;
                // A server that repeats the cursor would loop forever; treat it as the end.
                let next = (!page.is_last() && page.next_cursor != cursor)
                    .then(|| page.next_cursor.clone());
                Ok(Some((page, next)))
            }
        })
    }

    /// Collects every row of every page; skipped rows of all pages are returned too, each
    /// indexed in the whole walk.
    pub(crate) async fn collect_all<T: Send + 'static>(
        &self,
        spec: PageSpec<T>,
    ) -> Result<(Vec<T>, Vec<SkippedRow>), Error> {
        use futures_util::TryStreamExt as _;
        let mut walk = Walk::new();
        let mut s = std::pin::pin!(self.page_stream(spec));
        while let Some(page) = s.try_next().await? {
            walk.page(page.data, page.skipped);
        }
        Ok(walk.finish())
    }
}
