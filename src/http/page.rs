//! Pages and rows as every client reads them: the CLOB's cursor page
//! (`{"data":[…],"next_cursor":"…","limit":N,"count":N}`, starting at `MA==` and ending at
//! `LTE=`), and the row-by-row fallback Gamma's and the Data API's pages share, which reports a
//! row that does not decode as a [`SkippedRow`] instead of failing the page.
//!
//! A page is decoded in one pass. Only when that pass fails on a row does the decoder split
//! the page into raw rows and decode each on its own, so one odd row is reported in
//! [`Page::skipped`] instead of failing the page.
//!
//! The shapes a page reader accepts: a JSON object (its members by name, in any order, others
//! skipped) whose `data` is an array of objects. serde would also read a struct from an array
//! of its fields in order, so a bare array, or rows given as arrays, would "decode"; no
//! endpoint sends them, and here a body that is not an object is an error and a row that is
//! not an object is skipped and reported. Numbers follow the JSON scanner's contract (JSON's
//! grammar; a range is checked only where a number is converted).

use std::borrow::Cow;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::lenient;
use super::rows::{ObjectRow, Rows, SkippedRow, decode_each};
use super::{Error, Kind};
use crate::json::from_body;

/// The first cursor (base64 of `"0"`).
pub const START_CURSOR: &str = "MA==";
/// The cursor the server returns on the last page (base64 of `"-1"`).
pub const END_CURSOR: &str = "LTE=";

/// One page of a Data API v2 list (`pagination.next_cursor`, `has_more`) or of a Gamma keyset
/// list (`next_cursor`, sent back as `after_cursor`): the hosts whose cursor is absent on the
/// last page. (The CLOB's pages are [`Page`], whose cursor ends at [`END_CURSOR`].)
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CursorPage<T> {
    /// The rows that decoded.
    pub data: Vec<T>,
    /// The cursor of the next page; `None` on the last page.
    pub next_cursor: Option<String>,
    /// Whether a next page exists: the Data API's `pagination.has_more` (exact, per its docs);
    /// on Gamma, whether a cursor was sent.
    pub has_more: bool,
    /// Rows that did not decode, with their index in the page, the reason and their raw
    /// text: reported here, never silently dropped.
    pub skipped: Vec<SkippedRow>,
}

impl<T> Rows for CursorPage<T> {
    fn skipped(&self) -> &[SkippedRow] {
        &self.skipped
    }
}

/// One page of a list endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Page<T> {
    /// The rows that decoded.
    pub data: Vec<T>,
    /// Cursor of the next page; [`END_CURSOR`] on the last one.
    pub next_cursor: String,
    /// Page size limit reported by the server.
    pub limit: u64,
    /// Row count reported by the server.
    pub count: u64,
    /// Rows that did not decode: index, reason, raw text (never dropped unsaid).
    pub skipped: Vec<SkippedRow>,
}

impl<T> Rows for Page<T> {
    fn skipped(&self) -> &[SkippedRow] {
        &self.skipped
    }
}

impl<T> Page<T> {
    /// Whether this is the last page.
    #[must_use]
    pub fn is_last(&self) -> bool {
        self.next_cursor == END_CURSOR || self.next_cursor.is_empty()
    }

    /// Maps every row (e.g. `Market::into_owned`).
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            data: self.data.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
            limit: self.limit,
            count: self.count,
            skipped: self.skipped,
        }
    }
}

#[derive(Deserialize)]
#[serde(bound = "T: Deserialize<'de>")]
struct Fast<'a, T> {
    #[serde(default = "Vec::new", deserialize_with = "object_rows")]
    data: Vec<T>,
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    next_cursor: Cow<'a, str>,
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    limit: u64,
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    count: u64,
}

#[derive(Deserialize)]
struct Split<'a> {
    #[serde(borrow, default)]
    data: Vec<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "lenient::text")]
    next_cursor: Cow<'a, str>,
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    limit: u64,
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    count: u64,
}

/// The rows of `data`, each read as an object (see the module docs).
fn object_rows<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    struct Rows<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Rows<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an array of objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut rows = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(ObjectRow(row)) = seq.next_element()? {
                rows.push(row);
            }
            Ok(rows)
        }
    }
    d.deserialize_seq(Rows(PhantomData))
}

/// Whether `body`, after leading whitespace, opens an object.
fn is_object(body: &[u8]) -> bool {
    body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// The error for a body that is not a page object.
fn not_a_page() -> Error {
    Error::new(Kind::Decode).with_message("a page must be a JSON object")
}

/// Decodes one page, borrowing from `body` where `T` does.
///
/// ```
/// use polyclob::clob::types::Market;
/// use polyclob::http::decode_page;
///
/// let body = br#"{"data":[{"condition_id":"0x1","minimum_tick_size":0.01},{"condition_id":7,"tokens":"oops"}],
///                 "next_cursor":"LTE=","limit":2,"count":2}"#;
/// let page = decode_page::<Market<'_>>(body).unwrap();
/// assert_eq!(page.data.len(), 1);
/// assert_eq!(page.skipped[0].index, 1);
/// assert!(page.is_last());
/// ```
///
/// # Errors
///
/// When `body` is not JSON or not a page object.
pub fn decode_page<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<Page<T>, Error> {
    if !is_object(body) {
        return Err(not_a_page());
    }
    if let Ok(f) = from_body::<Fast<'a, T>>(body) {
        return Ok(Page {
            data: f.data,
            next_cursor: f.next_cursor.into_owned(),
            limit: f.limit,
            count: f.count,
            skipped: Vec::new(),
        });
    }
    let s: Split<'a> = from_body(body).map_err(|e| Error::new(Kind::Decode).with_source(e))?;
    let (data, skipped) = decode_each("data", s.data);
    Ok(Page {
        data,
        next_cursor: s.next_cursor.into_owned(),
        limit: s.limit,
        count: s.count,
        skipped,
    })
}

/// Decodes one page with simd-json, borrowing from `scratch` (where `body` is copied and
/// unescaped in place, so no text field allocates). Falls back to [`decode_page`] over `body`
/// when a row does not decode, so odd rows are still skipped and reported.
///
/// ```
/// use polyclob::clob::types::Market;
/// use polyclob::http::decode_page_simd;
///
/// let body = br#"{"data":[{"condition_id":"0x1","question":"a \"quoted\" one"}],"next_cursor":"LTE="}"#;
/// let mut scratch = Vec::new();
/// let page = decode_page_simd::<Market<'_>>(body, &mut scratch).unwrap();
/// assert_eq!(page.data[0].question, "a \"quoted\" one");
/// ```
///
/// # Errors
///
/// When `body` is not JSON or not a page object.
#[cfg(feature = "simd-json")]
pub fn decode_page_simd<'a, T: Deserialize<'a>>(
    body: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Result<Page<T>, Error> {
    if !is_object(body) {
        return Err(not_a_page());
    }
    scratch.clear();
    scratch.extend_from_slice(body);
    match simd_json::serde::from_slice::<Fast<'a, T>>(scratch) {
        Ok(f) => Ok(Page {
            data: f.data,
            next_cursor: f.next_cursor.into_owned(),
            limit: f.limit,
            count: f.count,
            skipped: Vec::new(),
        }),
        Err(_) => decode_page(body),
    }
}

/// Decodes a JSON array (the body is the list; `null` is an empty one) leniently: rows that
/// fail are skipped and reported.
pub(crate) fn decode_rows<'a, T: Deserialize<'a>>(
    body: &'a [u8],
) -> Result<(Vec<T>, Vec<SkippedRow>), Error> {
    if body.trim_ascii() == b"null" {
        return Ok((Vec::new(), Vec::new()));
    }
    if let Ok(v) = from_body::<Vec<ObjectRow<T>>>(body) {
        return Ok((
            v.into_iter().map(|ObjectRow(row)| row).collect(),
            Vec::new(),
        ));
    }
    let raws: Vec<&'a RawValue> =
        from_body(body).map_err(|e| Error::new(Kind::Decode).with_source(e))?;
    Ok(decode_each("", raws))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row with the shape of a CLOB market's first fields.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Market<'a> {
        #[serde(borrow)]
        condition_id: Cow<'a, str>,
        #[serde(borrow, default)]
        question: Cow<'a, str>,
        #[serde(default)]
        tokens: Vec<serde_json::Value>,
    }

    const BODY: &[u8] = br#"{"data":[{"condition_id":"0x1","question":"q \"1\""},{"condition_id":"0x2","tokens":7},{"condition_id":"0x3"}],"next_cursor":"Mg==","limit":3,"count":3}"#;

    /// A page is an object and its rows are objects: serde would read a struct from an array
    /// of its fields, so a bare array of arrays (a fuzz finding) "decoded" as a page, and a row
    /// given as an array as a market.
    #[test]
    fn only_objects_are_pages_and_rows() {
        for body in [
            &b"[[2333333,33333E3333,333333,333366666663,333366666]]"[..],
            b" [{}]",
            b"7",
        ] {
            assert!(decode_page::<Market<'_>>(body).is_err());
        }
        let body = br#"{"data":[["0x1","q"],{"condition_id":"0x2"}],"next_cursor":"LTE="}"#;
        let p = decode_page::<Market<'_>>(body).unwrap();
        assert_eq!(p.data.len(), 1);
        assert_eq!(&*p.data[0].condition_id, "0x2");
        assert_eq!(p.skipped[0].index, 0);
        let rows = decode_rows::<serde_json::Value>(br#"[{"a":1},[1]]"#).unwrap();
        assert_eq!((rows.0.len(), rows.1.len()), (1, 1));
    }

    #[test]
    fn odd_rows_are_skipped_and_reported() {
        let p = decode_page::<Market<'_>>(BODY).unwrap();
        assert_eq!(
            p.data.iter().map(|m| &*m.condition_id).collect::<Vec<_>>(),
            ["0x1", "0x3"]
        );
        assert_eq!(p.skipped.len(), 1);
        assert_eq!(p.skipped[0].index, 1);
        assert!(!p.is_last());
        assert!(decode_page::<Market<'_>>(b"[1,2]").is_err());
        assert!(decode_page::<Market<'_>>(b"{\"data\":[").is_err());
    }

    #[cfg(feature = "simd-json")]
    #[test]
    fn simd_agrees_and_falls_back() {
        let mut scratch = Vec::new();
        let p = decode_page_simd::<Market<'_>>(BODY, &mut scratch).unwrap();
        assert_eq!(p.data.len(), 2);
        assert_eq!(p.skipped.len(), 1);
        assert_eq!(p.data[0].question, "q \"1\"");
        let good = br#"{"data":[{"condition_id":"0x1","question":"q \"1\"","minimum_tick_size":0.001}],"next_cursor":"LTE="}"#;
        let mut scratch = Vec::new();
        let a = decode_page_simd::<Market<'_>>(good, &mut scratch).unwrap();
        let b = decode_page::<Market<'_>>(good).unwrap();
        assert_eq!(a, b);
    }
}
