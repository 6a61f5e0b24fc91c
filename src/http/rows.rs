//! The one rule for every call that returns rows: **nothing is dropped silently**. A row that
//! does not decode comes back beside the rows as a [`SkippedRow`] (its index, the reason, its
//! raw text), or the call fails; the client's counters count it
//! ([`ClientCounters::skipped_rows`](super::ClientCounters::skipped_rows)) and tracing reports
//! it (`polyclob.http.skipped_row`).
//!
//! Here: the row type, the row-by-row decoder every page reader falls back to, the walk that
//! indexes skipped rows across pages, and [`Rows`], what an answer shows the transport so that
//! [`Client::rows`](super::Client::rows) can count and trace its skipped rows. A new
//! row-returning call decodes with [`decode_each`] (or a page reader built on it) and passes
//! its answer through `Client::rows`; nothing else is needed.

use serde::de::{Deserializer, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};
use serde_json::value::RawValue;

/// A row left out of an answer because it did not decode: where it was, why, and what it was.
///
/// ```
/// use polyclob::http::{SkippedRow, decode_page};
///
/// let body = br#"{"data":[{"id":"a"},{"id":{"nested":1}}],"next_cursor":"LTE="}"#;
/// #[derive(serde::Deserialize)]
/// struct Row { id: String }
/// let page = decode_page::<Row>(body)?;
/// let bad: &SkippedRow = &page.skipped[0];
/// assert_eq!((bad.list, bad.index), ("data", 1));
/// assert_eq!(bad.raw, r#"{"id":{"nested":1}}"#);
/// assert!(bad.reason.contains("invalid type"), "{}", bad.reason);
/// # Ok::<(), polyclob::http::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkippedRow {
    /// The JSON member the row was read from (`data`, `markets`, `events`, `history`, …;
    /// `""` when the answer is itself the list).
    pub list: &'static str,
    /// Index of the row in its list; for a call that walks pages (`all_*`, `collect`), in
    /// the whole walk (every row of earlier pages counted), so it names one row.
    pub index: usize,
    /// Why it did not decode (the decoder's message, naming the field where it can).
    pub reason: String,
    /// The row's JSON text as the server sent it, cut at [`RAW_MAX`](Self::RAW_MAX) bytes
    /// (on a character boundary).
    pub raw: String,
    /// The length in bytes of the whole row text: more than `raw.len()` when it was cut.
    pub raw_len: usize,
}

impl SkippedRow {
    /// How much of a row's text is kept: 4 KiB, so that one row of the CLOB or the Data API
    /// (a trade with its maker legs, a position) is kept whole and a long Gamma market
    /// (description, nested events) from its start. Bounded because a report is held and
    /// passed around: one pathological row (a huge nested array) must not hold megabytes,
    /// and a change of format fails every row of every page of a walk at once.
    pub const RAW_MAX: usize = 4096;

    /// A skipped row of `list` at `index`, keeping at most [`RAW_MAX`](Self::RAW_MAX) bytes
    /// of `raw`.
    pub(crate) fn new(
        list: &'static str,
        index: usize,
        reason: impl Into<String>,
        raw: &str,
    ) -> Self {
        Self {
            list,
            index,
            reason: reason.into(),
            raw: cut(raw, Self::RAW_MAX).to_owned(),
            raw_len: raw.len(),
        }
    }

    /// Whether [`raw`](Self::raw) is only the start of the row.
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.raw.len() < self.raw_len
    }
}

/// `s` cut to at most `max` bytes on a character boundary.
pub(crate) fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// What a row-returning answer shows the transport: the rows it left out.
pub(crate) trait Rows {
    /// The rows that did not decode.
    fn skipped(&self) -> &[SkippedRow];
}

impl<T> Rows for (Vec<T>, Vec<SkippedRow>) {
    fn skipped(&self) -> &[SkippedRow] {
        &self.1
    }
}

/// Decodes the rows of `list` one by one: each row that fails is reported by index, with its
/// raw text, never left out. Every page reader of the crate falls back to it.
pub(crate) fn decode_each<'a, T: Deserialize<'a>>(
    list: &'static str,
    rows: Vec<&'a RawValue>,
) -> (Vec<T>, Vec<SkippedRow>) {
    let mut data = Vec::with_capacity(rows.len());
    let mut skipped = Vec::new();
    for (index, raw) in rows.into_iter().enumerate() {
        match serde_json::from_str::<ObjectRow<T>>(raw.get()) {
            Ok(ObjectRow(row)) => data.push(row),
            Err(e) => skipped.push(SkippedRow::new(list, index, e.to_string(), raw.get())),
        }
    }
    (data, skipped)
}

/// Every row of a walk over pages, with the skipped rows indexed in the whole walk.
#[derive(Debug)]
pub(crate) struct Walk<T> {
    rows: Vec<T>,
    skipped: Vec<SkippedRow>,
}

impl<T> Walk<T> {
    pub(crate) fn new() -> Self {
        Self {
            rows: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// Adds one page: its skipped rows' indexes move past every row seen before.
    pub(crate) fn page(&mut self, data: Vec<T>, skipped: Vec<SkippedRow>) {
        let seen = self.rows.len() + self.skipped.len();
        self.rows.extend(data);
        self.skipped.extend(skipped.into_iter().map(|mut r| {
            r.index += seen;
            r
        }));
    }

    pub(crate) fn finish(self) -> (Vec<T>, Vec<SkippedRow>) {
        (self.rows, self.skipped)
    }
}

/// A row that must be a JSON object: `T` is read through [`MapOnly`].
pub(crate) struct ObjectRow<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectRow<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(MapOnly(d)).map(ObjectRow)
    }
}

/// A deserializer that reads every value as a map, so that a struct is not read from an array
/// of its fields.
struct MapOnly<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for MapOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_text_is_kept_and_cut_on_a_char_boundary() {
        let long = format!("{{\"a\":\"{}\"}}", "é".repeat(3000));
        let r = SkippedRow::new("data", 3, "bad", &long);
        assert_eq!(r.raw_len, long.len());
        assert!(r.is_cut() && r.raw.len() <= SkippedRow::RAW_MAX);
        assert!(long.starts_with(&r.raw));
        let short = SkippedRow::new("data", 0, "bad", "[1]");
        assert_eq!((short.raw.as_str(), short.is_cut()), ("[1]", false));
    }

    #[test]
    fn each_bad_row_is_reported_with_its_text() {
        let rows: Vec<&RawValue> =
            serde_json::from_str(r#"[{"a":1},[1],{"a":"x"},{"a":2}]"#).unwrap();
        let (data, skipped) = decode_each::<serde_json::Map<String, serde_json::Value>>("x", rows);
        assert_eq!(data.len(), 3);
        assert_eq!(skipped.len(), 1);
        assert_eq!((skipped[0].index, skipped[0].raw.as_str()), (1, "[1]"));
    }

    #[test]
    fn a_walk_indexes_rows_across_pages() {
        let mut w = Walk::new();
        w.page(vec![1, 2], vec![SkippedRow::new("data", 1, "x", "{}")]);
        w.page(vec![3], vec![SkippedRow::new("data", 0, "y", "{}")]);
        let (rows, skipped) = w.finish();
        assert_eq!(rows, [1, 2, 3]);
        assert_eq!(skipped.iter().map(|s| s.index).collect::<Vec<_>>(), [1, 3]);
    }
}
